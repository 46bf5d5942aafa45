package e2e

import (
	"flag"
	"os"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// kubeconfig names the cluster under test; --kubeconfig wins over $KUBECONFIG.
var kubeconfig = flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster under test (default $KUBECONFIG)")

var (
	// restConfig is the cluster's client configuration; set before any spec runs.
	restConfig *rest.Config
	// client talks to the cluster under test; set before any spec runs.
	client kubernetes.Interface
)

func TestE2E(t *testing.T) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	ginkgo.RunSpecs(t, "netfork e2e")
}

var _ = ginkgo.BeforeSuite(func() {
	if *kubeconfig == "" {
		ginkgo.Skip("neither --kubeconfig nor KUBECONFIG is set: the e2e suite needs a cluster (make run, or a kind cluster)")
	}
	var err error
	restConfig, err = clientcmd.BuildConfigFromFlags("", *kubeconfig)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "loading kubeconfig %s", *kubeconfig)
	client, err = kubernetes.NewForConfig(restConfig)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
})
