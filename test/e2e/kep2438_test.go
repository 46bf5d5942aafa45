package e2e

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/netfork/netfork/internal/clustercheck"
)

// familiesEnv optionally tells the suite whether the apiservers advertise one address
// per family ("dual") or one address ("single"); see doc.go.
const familiesEnv = "NETFORK_E2E_APISERVER_FAMILIES"

// kubernetesServiceTimeout covers two lease-reconcile intervals (10 s each) plus the
// lease TTL, for apiservers that have just started or stopped.
const kubernetesServiceTimeout = 60 * time.Second

// kubernetesSlices selects the kubernetes Service's EndpointSlices.
var kubernetesSlices = clustercheck.KubernetesSlices

// quietClient is the suite's client without the v1 Endpoints deprecation warning, which
// every poll of the kubernetes Endpoints would print.
func quietClient() kubernetes.Interface {
	config := rest.CopyConfig(restConfig)
	config.WarningHandler = rest.NoWarnings{}
	cs, err := kubernetes.NewForConfig(config)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return cs
}

var _ = ginkgo.Describe("The kubernetes Service [KEP-2438]", ginkgo.Label("KEP-2438"), func() {
	ginkgo.It("matches what the apiservers advertise: one ClusterIP and EndpointSlice per family it serves", func(ctx context.Context) {
		f := clusterFacts(ctx)
		n := apiserverCount(ctx)
		expect := os.Getenv(familiesEnv)
		if expect != "" && expect != "dual" && expect != "single" {
			ginkgo.Fail(fmt.Sprintf("%s=%q: want dual or single", familiesEnv, expect))
		}
		cs := quietClient()
		shape := clustercheck.Shape{Ranges: f.serviceRanges, APIServers: n, Families: expect}
		gomega.Eventually(ctx, func(ctx context.Context) ([]string, error) {
			return clustercheck.KubernetesServiceProblems(ctx, cs, shape)
		}).WithTimeout(kubernetesServiceTimeout).WithPolling(2*time.Second).Should(gomega.BeEmpty(),
			"the kubernetes Service, Endpoints and EndpointSlices never agreed (apiservers: %d, %s=%q)", n, familiesEnv, expect)
	})
})
