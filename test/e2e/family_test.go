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
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The day-2 dual-stack specs (KEP-2438 with KEP-1880's default ServiceCIDR) turn a running
// IPv4 cluster dual-stack and back through the kind hook's family operations and the
// kubectl servicecidr plugin, under the live-range specs' probes (docs/operations.md has the
// runbook they follow). The way back runs even when the first spec failed its probe
// thresholds, as long as it turned the cluster dual-stack.
var _ = ginkgo.Describe("Day-2 dual-stack [Feature:LiveRanges]", ginkgo.Label("live-ranges", "datapath", "KEP-2438", "KEP-1880"), ginkgo.Serial, ginkgo.Ordered, ginkgo.ContinueOnFailure, func() {
	ginkgo.It("turns a running IPv4 cluster dual-stack: apiservers rolled to two ranges, the default ServiceCIDR and the kubernetes Service dual-stack, nodes and kube-proxy given IPv6, Services upgraded in place; each step undone once and done again", lfDualSpec)

	ginkgo.It("turns a day-2 dual-stack cluster back to IPv4: Services single-stack in place, nodes and apiservers rolled back, the default ServiceCIDR replaced, no IPv6 left; each step undone once and done again", lfBackSpec)
})

// lfHold is the ServiceCIDR replace-default keeps the addresses in use covered with.
const lfHold = "servicecidr-hold"

// lfTurnedDual is set once lfDualSpec has rolled the control planes dual-stack for good:
// lfBackSpec turns only such a cluster back, never one created dual-stack, whose nodes hold
// IPv6 Pod ranges, and does so even when lfDualSpec failed after that point.
var lfTurnedDual bool

// lfDefaultCIDRs returns the default ServiceCIDR's CIDRs.
func lfDefaultCIDRs(ctx context.Context) []string {
	c, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, lrDefaultCIDR, metav1.GetOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return c.Spec.CIDRs
}

// lfIPv6 reports whether s is an IPv6 address or prefix.
func lfIPv6(s string) bool { return strings.Contains(s, ":") }

// lfRoll rolls every apiserver, one at a time, to family ("ipv4" or "dual") through the hook
// and returns how long each took.
func lfRoll(ctx context.Context, family string) []time.Duration {
	var took []time.Duration
	for i := 0; i < apiserverCount(ctx); i++ {
		start := time.Now()
		hook(ctx, "family", strconv.Itoa(i), family)
		took = append(took, time.Since(start).Round(time.Second))
	}
	return took
}

// lfWaitDefault waits until the default ServiceCIDR has n CIDRs, the first primary, and is
// Ready, and returns its CIDRs.
func lfWaitDefault(ctx context.Context, primary string, n int) []string {
	var cidrs []string
	gomega.Eventually(ctx, func(ctx context.Context) (string, error) {
		c, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, lrDefaultCIDR, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		cidrs = c.Spec.CIDRs
		ready := meta.IsStatusConditionTrue(c.Status.Conditions, networkingv1.ServiceCIDRConditionReady)
		if len(cidrs) != n || cidrs[0] != primary || !ready {
			return fmt.Sprintf("%v ready=%v", cidrs, ready), nil
		}
		return "ok", nil
	}).WithTimeout(2*cidrDeletionTimeout).WithPolling(time.Second).Should(gomega.Equal("ok"), "ServiceCIDR %s with %d CIDRs from %s", lrDefaultCIDR, n, primary)
	return cidrs
}

// lfWaitKubernetes waits until the kubernetes Service has families ClusterIPs, and its
// EndpointSlices one address type per family, with IPv6 endpoints for every apiserver when
// dual-stack, and no IPv6 slice left when not (kubernetes/kubernetes#101070). It returns the
// Service's ClusterIPs.
func lfWaitKubernetes(ctx context.Context, families int) []string {
	var ips []string
	gomega.Eventually(ctx, func(ctx context.Context) (string, error) {
		s, err := client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		ips = s.Spec.ClusterIPs
		slices, err := client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=kubernetes"})
		if err != nil {
			return "", err
		}
		v6 := 0
		types := map[discoveryv1.AddressType]bool{}
		for _, sl := range slices.Items {
			types[sl.AddressType] = true
			if sl.AddressType == discoveryv1.AddressTypeIPv6 {
				v6 += len(sl.Endpoints)
			}
		}
		switch {
		case len(s.Spec.ClusterIPs) != families:
			return fmt.Sprintf("ClusterIPs %v", s.Spec.ClusterIPs), nil
		case families == 2 && v6 != apiserverCount(ctx):
			return fmt.Sprintf("%d IPv6 endpoints for %d apiservers", v6, apiserverCount(ctx)), nil
		case len(types) != families:
			return fmt.Sprintf("EndpointSlices of address types %v", types), nil
		}
		return "ok", nil
	}).WithTimeout(3*time.Minute).WithPolling(time.Second).Should(gomega.Equal("ok"), "the kubernetes Service with %d families", families)
	return ips
}

// lfNodes gives every node the addresses of family through the hook, restarts kube-proxy for
// it, and waits until every Node reports an InternalIP of each family.
func lfNodes(ctx context.Context, family string) {
	for _, node := range strings.Fields(hook(ctx, "nodes")) {
		hook(ctx, "node-family", node, family)
	}
	want := 1
	if family == "dual" {
		want = 2
	}
	gomega.Eventually(ctx, func(ctx context.Context) ([]string, error) {
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		var wrong []string
		for _, n := range nodes.Items {
			ips := 0
			for _, a := range n.Status.Addresses {
				if a.Type == corev1.NodeInternalIP {
					ips++
				}
			}
			if ips != want {
				wrong = append(wrong, fmt.Sprintf("%s has %d InternalIPs", n.Name, ips))
			}
		}
		return wrong, nil
	}).WithTimeout(2*time.Minute).WithPolling(time.Second).Should(gomega.BeEmpty(), "nodes with their %s addresses", family)
	hook(ctx, "proxy-family", family)
}

// lfExpectAPI checks that the apiserver answers at the kubernetes Service's address ip from
// every node's network namespace, its certificate verified for that address; tag names the
// check's pods apart from another's.
func lfExpectAPI(ctx context.Context, ns, tag, ip string) {
	all, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	script := fmt.Sprintf(`curl -sS -o /dev/null -w '%%{http_code}' --max-time 3 --cacert /var/run/secrets/kubernetes.io/serviceaccount/ca.crt https://%s:443/version`, dpURLHost(ip))
	for _, node := range all.Items {
		lrEventuallyOn(ctx, ns, "api-"+tag, node.Name, script, "200", true, fmt.Sprintf("the apiserver at %s from node %s", ip, node.Name))
	}
}

// lfFamilies checks that each of names keeps its UID and primary ClusterIP and has families
// ClusterIPs, the second IPv6 and held by its IPAddress, and returns the second ones.
func lfFamilies(ctx context.Context, w *lrWorkload, families int) []string {
	var second []string
	gomega.Eventually(ctx, func(ctx context.Context) []string {
		second = nil
		var wrong []string
		now := lrServices(ctx, w.ns)
		for i, name := range w.names {
			s := now[name]
			switch {
			case s.UID != w.uids[name]:
				wrong = append(wrong, name+" was recreated")
			case len(s.Spec.ClusterIPs) != families || s.Spec.ClusterIPs[0] != w.ips[i]:
				wrong = append(wrong, fmt.Sprintf("%s has ClusterIPs %v", name, s.Spec.ClusterIPs))
			case families == 2 && !lfIPv6(s.Spec.ClusterIPs[1]):
				wrong = append(wrong, fmt.Sprintf("%s has a second ClusterIP %s that is not IPv6", name, s.Spec.ClusterIPs[1]))
			case families == 2:
				second = append(second, s.Spec.ClusterIPs[1])
			}
		}
		return wrong
	}).WithTimeout(time.Minute).WithPolling(time.Second).Should(gomega.BeEmpty(), "Services with %d families", families)
	for _, ip := range second {
		_, err := client.NetworkingV1().IPAddresses().Get(ctx, ip, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "IPAddress %s", ip)
	}
	return second
}

// lfIPv6Addresses returns the IPv6 IPAddresses left, with their parents.
func lfIPv6Addresses(ctx context.Context) []string {
	list, err := client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	var out []string
	for _, a := range list.Items {
		if lfIPv6(a.Name) {
			parent := ""
			if a.Spec.ParentRef != nil {
				parent = a.Spec.ParentRef.Namespace + "/" + a.Spec.ParentRef.Name
			}
			out = append(out, a.Name+" "+parent)
		}
	}
	return out
}

// lfRequire skips unless the default ServiceCIDR has families CIDRs, the first IPv4, and
// returns them. Call it after lrServiceCount, which skips where the live-range specs are not
// asked for.
func lfRequire(ctx context.Context, families int, why string) []string {
	requireHook()
	lrPlugin()
	requireIPAddressMode(ctx)
	cidrs := lfDefaultCIDRs(ctx)
	if len(cidrs) != families || lfIPv6(cidrs[0]) {
		ginkgo.Skip(fmt.Sprintf("the default ServiceCIDR is %v: %s", cidrs, why))
	}
	return cidrs
}

// lfExemptRolls exempts the API probes' failures in the roll phases when there is one
// apiserver: rolling it is a restart.
func lfExemptRolls(ctx context.Context, w *lrWorkload, phases ...string) {
	if apiserverCount(ctx) != 1 {
		return
	}
	for _, p := range phases {
		w.exempt[p] = "one apiserver: rolling it is a restart, and clients wait for it"
	}
}

// lfDualSpec turns a running IPv4 cluster dual-stack under the live-range probes: the
// apiservers rolled (then back, the default ServiceCIDR replaced, and rolled again), the
// nodes and kube-proxy (then back and again), the Services upgraded in place with kubectl
// servicecidr dual-stack (then single-stack and dual-stack again).
func lfDualSpec(ctx context.Context) {
	n := lrServiceCount()
	from := lfRequire(ctx, 1, "this spec turns an IPv4 cluster dual-stack (kind/live-ranges.sh --ip-family ipv4)")
	w := lrStartWorkload(ctx, n)
	lfExemptRolls(ctx, w, "roll", "unroll", "reroll")
	timer := &lrTimer{}

	w.clock.mark("roll")
	timer.begin()
	took := lfRoll(ctx, "dual")
	w.waitAPI(ctx)
	timer.end("apiservers rolled dual-stack, one at a time (%v)", took)
	cidrs := lfWaitDefault(ctx, from[0], 2)
	gomega.Expect(lfIPv6(cidrs[1])).To(gomega.BeTrue(), "the default ServiceCIDR's second CIDR %s", cidrs[1])
	lfWaitKubernetes(ctx, 2)

	w.clock.mark("unroll")
	timer.begin()
	took = lfRoll(ctx, "ipv4")
	w.waitAPI(ctx)
	lfWaitKubernetes(ctx, 1)
	lrMust(ctx, "replace-default")
	lfWaitDefault(ctx, from[0], 1)
	timer.end("undone: apiservers rolled back (%v), the default ServiceCIDR replaced", took)

	w.clock.mark("reroll")
	timer.begin()
	took = lfRoll(ctx, "dual")
	w.waitAPI(ctx)
	gomega.Expect(lfWaitDefault(ctx, from[0], 2)).To(gomega.Equal(cidrs), "the default ServiceCIDR after the second roll")
	k8sIPs := lfWaitKubernetes(ctx, 2)
	timer.end("apiservers rolled dual-stack again (%v)", took)
	lfTurnedDual = true

	w.clock.mark("nodes")
	timer.begin()
	lfNodes(ctx, "dual")
	lfExpectAPI(ctx, w.ns, "first", k8sIPs[1])
	lfNodes(ctx, "ipv4")
	lfNodes(ctx, "dual")
	lfExpectAPI(ctx, w.ns, "again", k8sIPs[1])
	timer.end("nodes and kube-proxy dual-stack, back and again; the kubernetes Service's %s answers from every node", k8sIPs[1])

	w.clock.mark("services")
	timer.begin()
	lrMust(ctx, "dual-stack")
	lfFamilies(ctx, w, 2)
	lrMust(ctx, "single-stack", "--namespace", w.ns)
	lfFamilies(ctx, w, 1)
	gomega.Expect(lfIPv6Addresses(ctx)).NotTo(gomega.ContainElement(gomega.HaveSuffix(" "+w.ns+"/"+w.names[0])), "an IPv6 IPAddress of a Service made single-stack is left")
	lrMust(ctx, "dual-stack", "--namespace", w.ns)
	v6 := lfFamilies(ctx, w, 2)
	timer.end("Services dual-stack in place, single-stack and dual-stack again")
	created, err := client.CoreV1().Services(w.ns).Create(ctx, lfPreferDual("svc-new"), metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(created.Spec.ClusterIPs).To(gomega.HaveLen(2), "a new PreferDualStack Service got %v", created.Spec.ClusterIPs)

	w.clock.mark("dual")
	nodes := strings.Fields(hook(ctx, "nodes"))
	for _, node := range nodes {
		lrEventuallyAllOn(ctx, w.ns, "v6", node, v6, true)
	}
	w.after = append(w.after, lrStartProbeOn(ctx, w.ns, "clusterip6", nodes[len(nodes)-1], v6, true))
	w.waitRounds(ctx, 3)

	w.clock.mark("end")
	w.expectReachable(ctx, append(append([]string{}, w.names...), w.ips...))
	w.report(ctx, append([]string{fmt.Sprintf("Services probed: %d, IPv4 %s turned dual-stack %v", n, from[0], cidrs)}, timer.lines...))
}

// lfPreferDual is a spec Service that asks for both families.
func lfPreferDual(name string) *corev1.Service {
	s := lrService(name)
	policy := corev1.IPFamilyPolicyPreferDualStack
	s.Spec.IPFamilyPolicy = &policy
	return s
}

// lfBackSpec turns the cluster lfDualSpec left dual-stack back to IPv4 under the same
// probes, each step but the last undone once and done again: its own Services made
// dual-stack first, then every Service single-stack (dual-stack, single-stack), the nodes
// and kube-proxy back (dual-stack, back), the apiservers back (dual-stack with the
// `kubernetes` Service, back), the default ServiceCIDR replaced; no IPv6 address is left
// and every Service keeps its IPv4 ClusterIP and UID.
func lfBackSpec(ctx context.Context) {
	n := lrServiceCount()
	if !lfTurnedDual {
		ginkgo.Skip("this spec turns back only a cluster the day-2 dual-stack spec before it turned dual-stack")
	}
	cidrs := lfRequire(ctx, 2, "the day-2 dual-stack spec left it so")
	w := lrStartWorkload(ctx, n)
	lfExemptRolls(ctx, w, "unroll", "reroll")
	timer := &lrTimer{}
	lrMust(ctx, "dual-stack", "--namespace", w.ns)
	v6 := lfFamilies(ctx, w, 2)
	nodes := strings.Fields(hook(ctx, "nodes"))
	probe6 := lrStartProbeOn(ctx, w.ns, "clusterip6", nodes[len(nodes)-1], v6, true)
	w.after = append(w.after, probe6)
	probe6.waitRounds(ctx, 1)

	w.clock.mark("single-stack")
	timer.begin()
	// the IPv6 probe's targets go away now: keep its log and stop it
	probe6.waitRounds(ctx, probe6.rounds(ctx)+1)
	probe6.log = dpLogs(ctx, probe6.ns, probe6.pod)
	gomega.Expect(client.CoreV1().Pods(probe6.ns).Delete(ctx, probe6.pod, metav1.DeleteOptions{})).To(gomega.Succeed())
	lrMust(ctx, "single-stack")
	lfFamilies(ctx, w, 1)
	lrMust(ctx, "dual-stack", "--namespace", w.ns)
	lfFamilies(ctx, w, 2)
	lrMust(ctx, "single-stack")
	lfFamilies(ctx, w, 1)
	timer.end("every Service single-stack in place, dual-stack and single-stack again")
	left := lfIPv6Addresses(ctx)
	for _, a := range left {
		gomega.Expect(a).To(gomega.HaveSuffix(" default/kubernetes"), "an IPv6 IPAddress other than the kubernetes Service's is left")
	}

	w.clock.mark("nodes")
	timer.begin()
	lfNodes(ctx, "ipv4")
	lfNodes(ctx, "dual")
	lfNodes(ctx, "ipv4")
	timer.end("nodes and kube-proxy IPv4, dual-stack and IPv4 again")

	w.clock.mark("unroll")
	timer.begin()
	took := lfRoll(ctx, "ipv4")
	w.waitAPI(ctx)
	lfWaitKubernetes(ctx, 1)
	timer.end("apiservers rolled back to IPv4 (%v); the kubernetes Service single-stack with no IPv6 EndpointSlice", took)

	w.clock.mark("reroll")
	timer.begin()
	took = lfRoll(ctx, "dual")
	w.waitAPI(ctx)
	lfWaitKubernetes(ctx, 2)
	again := lfRoll(ctx, "ipv4")
	w.waitAPI(ctx)
	lfWaitKubernetes(ctx, 1)
	timer.end("undone: apiservers dual-stack again (%v), the kubernetes Service too, and back to IPv4 (%v)", took, again)

	w.clock.mark("replace")
	timer.begin()
	lrMust(ctx, "replace-default")
	lfWaitDefault(ctx, cidrs[0], 1)
	_, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, lfHold, metav1.GetOptions{})
	gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "ServiceCIDR %s is left: %v", lfHold, err)
	gomega.Expect(lfIPv6Addresses(ctx)).To(gomega.BeEmpty(), "IPv6 IPAddresses left")
	timer.end("the default ServiceCIDR replaced with %s", cidrs[0])

	w.clock.mark("end")
	lfFamilies(ctx, w, 1)
	w.expectReachable(ctx, append(append([]string{}, w.names...), w.ips...))
	w.report(ctx, append([]string{fmt.Sprintf("Services probed: %d, dual-stack %v turned back to IPv4 %s", n, cidrs, cidrs[0])}, timer.lines...))
}
