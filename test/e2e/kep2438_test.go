/*
Copyright 2026 The netfork Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

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

	"github.com/netfork/netfork/test/internal/clustercheck"
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
