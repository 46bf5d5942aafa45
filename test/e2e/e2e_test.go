package e2e

import (
	"os"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// client talks to the cluster under test; set before any spec runs.
var client kubernetes.Interface

func TestE2E(t *testing.T) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	ginkgo.RunSpecs(t, "netfork e2e")
}

var _ = ginkgo.BeforeSuite(func() {
	path := os.Getenv("KUBECONFIG")
	if path == "" {
		ginkgo.Skip("KUBECONFIG is not set: the e2e suite needs a cluster (make run, or a kind cluster)")
	}
	config, err := clientcmd.BuildConfigFromFlags("", path)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "loading kubeconfig %s", path)
	client, err = kubernetes.NewForConfig(config)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
})
