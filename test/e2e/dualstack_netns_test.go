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
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/test/internal/clustercheck"
)

const (
	// netnsHostsEnv names the hosts.json of the cluster hack/local-up-netns.sh
	// runs; the netns specs skip without it.
	netnsHostsEnv = "NETFORK_NETNS_HOSTS"
	// dualStackTimeout is the KEP-2438 contract's two lease-reconcile intervals
	// (10 s each) plus the lease TTL, for apiservers that have just started.
	dualStackTimeout = 60 * time.Second
)

// netnsCluster is hosts.json: the hosts (network namespaces) of the cluster
// and the addresses each one's apiserver binds and advertises.
type netnsCluster struct {
	Port       int      `json:"port"`
	CAFile     string   `json:"caFile"`
	ServiceIPs []string `json:"serviceIPs"`
	Hosts      []struct {
		Netns string `json:"netns"`
		IPv4  string `json:"ipv4"`
		IPv6  string `json:"ipv6"`
		Log   string `json:"log"`
	} `json:"hosts"`
}

var _ = ginkgo.Describe("Dual-stack apiservers on three hosts [KEP-2438]", ginkgo.Label("netns"), func() {
	var (
		cluster *netnsCluster
		// quiet is the suite's client without the v1 Endpoints deprecation
		// warning, which every poll of the Endpoints would print.
		quiet kubernetes.Interface
	)
	ginkgo.BeforeEach(func() {
		cluster = loadNetnsCluster()
		quiet = quietClient()
	})

	ginkgo.It("serves on both families of every host, reached from every host", func(ctx context.Context) {
		for _, command := range []string{"ip", "curl"} {
			if _, err := exec.LookPath(command); err != nil {
				ginkgo.Skip(fmt.Sprintf("this spec runs curl in the hosts' namespaces and needs %q: %v", command, err))
			}
		}
		port := strconv.Itoa(cluster.Port)
		for _, from := range cluster.Hosts {
			for _, to := range cluster.Hosts {
				for _, addr := range []string{to.IPv4, to.IPv6} {
					url := "https://" + net.JoinHostPort(addr, port) + "/readyz"
					// --cacert without --insecure: the serving cert must name the address.
					out, err := exec.CommandContext(ctx, "ip", "netns", "exec", from.Netns,
						"curl", "--silent", "--show-error", "--max-time", "10", "--cacert", cluster.CAFile, url).CombinedOutput()
					gomega.Expect(err).NotTo(gomega.HaveOccurred(), "curl %s from %s: %s (apiserver log: %s)", url, from.Netns, out, to.Log)
					gomega.Expect(string(out)).To(gomega.Equal("ok"), "GET %s from %s", url, from.Netns)
				}
			}
		}
	})

	ginkgo.It("publishes exactly the hosts' six addresses, one EndpointSlice per family", func(ctx context.Context) {
		gomega.Eventually(ctx, func(ctx context.Context) error {
			return dualStackMismatch(ctx, quiet, cluster)
		}).WithTimeout(dualStackTimeout).WithPolling(2*time.Second).Should(gomega.Succeed(),
			"the kubernetes Service, its Endpoints and EndpointSlices never showed every apiserver dual-stack")
	})
})

// loadNetnsCluster reads $NETFORK_NETNS_HOSTS, or skips the spec without it.
func loadNetnsCluster() *netnsCluster {
	path := os.Getenv(netnsHostsEnv)
	if path == "" {
		ginkgo.Skip(netnsHostsEnv + " is unset: the netns specs run against hack/local-up-netns.sh's cluster (make test-netns)")
	}
	data, err := os.ReadFile(path)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading %s=%s", netnsHostsEnv, path)
	c := &netnsCluster{}
	gomega.Expect(json.Unmarshal(data, c)).To(gomega.Succeed(), "decoding %s", path)
	gomega.Expect(c.Hosts).NotTo(gomega.BeEmpty(), "%s lists no hosts", path)
	gomega.Expect(c.ServiceIPs).To(gomega.HaveLen(2), "%s: want one ClusterIP per family", path)
	return c
}

// dualStackMismatch describes how the kubernetes Service, Endpoints and
// EndpointSlices differ from issue 5's dual-stack contract for the cluster's
// hosts, or returns nil: the Service RequireDualStack with the first address of
// both service ranges; one EndpointSlice per family, the IPv4 one named
// kubernetes as upstream names it, together holding exactly every host's two
// addresses; the Endpoints holding the primary family only.
func dualStackMismatch(ctx context.Context, cs kubernetes.Interface, c *netnsCluster) error {
	var wantV4, wantV6 []string
	for _, h := range c.Hosts {
		wantV4 = append(wantV4, canonical(h.IPv4))
		wantV6 = append(wantV6, canonical(h.IPv6))
	}
	slices.Sort(wantV4)
	slices.Sort(wantV6)

	var problems []string
	svc, err := cs.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("getting the kubernetes Service: %w", err)
	}
	if p := svc.Spec.IPFamilyPolicy; p == nil || *p != corev1.IPFamilyPolicyRequireDualStack {
		problems = append(problems, fmt.Sprintf("Service ipFamilyPolicy is %v, want RequireDualStack", deref(p)))
	}
	if !slices.Equal(svc.Spec.ClusterIPs, c.ServiceIPs) {
		problems = append(problems, fmt.Sprintf("Service clusterIPs are %v, want %v", svc.Spec.ClusterIPs, c.ServiceIPs))
	}

	list, err := cs.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelServiceName + "=kubernetes",
	})
	if err != nil {
		return fmt.Errorf("listing the kubernetes EndpointSlices: %w", err)
	}
	var seen []string
	var haveV4, haveV6 bool
	for _, slice := range list.Items {
		seen = append(seen, fmt.Sprintf("%s(%s)", slice.Name, slice.AddressType))
		switch {
		case slice.AddressType == discoveryv1.AddressTypeIPv4 && slice.Name == "kubernetes":
			haveV4 = true
			problems = append(problems, sliceMismatch(slice, wantV4, c.Port)...)
		case slice.AddressType == discoveryv1.AddressTypeIPv6:
			haveV6 = true
			problems = append(problems, sliceMismatch(slice, wantV6, c.Port)...)
		}
	}
	if len(list.Items) != 2 || !haveV4 || !haveV6 {
		problems = append(problems, fmt.Sprintf("EndpointSlices are %v, want kubernetes(IPv4) and one IPv6 slice", seen))
	}

	endpoints, err := cs.CoreV1().Endpoints(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("getting the kubernetes Endpoints: %w", err)
	}
	var got []string
	for _, subset := range endpoints.Subsets {
		for _, a := range subset.Addresses {
			got = append(got, canonical(a.IP))
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, wantV4) {
		problems = append(problems, fmt.Sprintf("Endpoints hold %v, want the primary family only: %v", got, wantV4))
	}

	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// sliceMismatch describes how slice differs from one ready endpoint per
// address in want, on port.
func sliceMismatch(slice discoveryv1.EndpointSlice, want []string, port int) []string {
	got, problems := clustercheck.SliceAddresses(slice, port)
	if !slices.Equal(got, want) {
		problems = append(problems, fmt.Sprintf("EndpointSlice %s (%s) holds %v, want %v", slice.Name, slice.AddressType, got, want))
	}
	return problems
}

// canonical spells an address as netip does, so equal IPv6 addresses compare equal.
func canonical(s string) string {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.String()
	}
	return s
}

// deref shows an optional policy, "<unset>" when nil.
func deref(p *corev1.IPFamilyPolicy) string {
	if p == nil {
		return "<unset>"
	}
	return string(*p)
}
