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
	"net/netip"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/netfork/netfork/test/internal/clustercheck"
)

const (
	// readyTimeout bounds a ServiceCIDR's way to Ready and a repair loop's catching up.
	readyTimeout = 30 * time.Second
	// cidrDeletionTimeout covers the deletion controller's grace (netfork's 60 s,
	// kube-controller-manager's 10 s) plus its requeue after the last address goes.
	cidrDeletionTimeout = 2 * time.Minute
	// netforkCIDRControllerLease is held by netfork's ServiceCIDR deletion controller.
	netforkCIDRControllerLease = "netfork-service-cidr-controller"
)

// requireIPAddressMode skips specs about IPAddress objects on a bitmap-only cluster.
func requireIPAddressMode(ctx context.Context) *facts {
	f := clusterFacts(ctx)
	if !f.ipAddressMode {
		ginkgo.Skip("this cluster allocates ClusterIPs from the legacy bitmaps (MultiCIDRServiceAllocator off): no IPAddress objects to check")
	}
	return f
}

var _ = ginkgo.Describe("ClusterIPs and IPAddresses [KEP-1880]", ginkgo.Label("KEP-1880"), func() {
	ginkgo.It("gives a dual-stack Service one ClusterIP per service range, each backed by its IPAddress", func(ctx context.Context) {
		f := requireIPAddressMode(ctx)
		ns := testNamespace(ctx)
		svc := clusterIPService("e2e")
		policy := corev1.IPFamilyPolicyPreferDualStack
		svc.Spec.IPFamilyPolicy = &policy
		svc, err := client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(svc.Spec.ClusterIPs).To(gomega.HaveLen(len(f.serviceRanges)), "one ClusterIP per service range %v", f.serviceRanges)

		cidrs := serviceCIDRPrefixes(ctx)
		for _, ip := range svc.Spec.ClusterIPs {
			addr := netip.MustParseAddr(ip)
			gomega.Expect(containing(cidrs, addr)).NotTo(gomega.BeEmpty(), "ClusterIP %s outside every ServiceCIDR %v", ip, cidrs)
			// The allocator writes the IPAddress before the Service exists.
			a, err := client.NetworkingV1().IPAddresses().Get(ctx, addr.String(), metav1.GetOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "IPAddress of ClusterIP %s", ip)
			gomega.Expect(a.Spec.ParentRef).To(gomega.Equal(&networkingv1.ParentReference{Resource: "services", Namespace: ns, Name: svc.Name}))
			gomega.Expect(a.Labels).To(gomega.HaveKeyWithValue(clustercheck.ManagedByLabel, clustercheck.ManagedByAllocator))
		}
	})

	ginkgo.It("has an IPAddress for every ClusterIP of every Service and no allocator IPAddress without its Service", func(ctx context.Context) {
		requireIPAddressMode(ctx)
		gomega.Eventually(ctx, func(ctx context.Context) ([]string, error) {
			problems, _, _, err := clustercheck.IPAddressProblems(ctx, client, "true")
			return problems, err
		}).WithTimeout(readyTimeout).WithPolling(2 * time.Second).Should(gomega.BeEmpty())
	})

	// Labeled deletion-grace: it waits out the ServiceCIDR deletion grace period (60 s,
	// netfork's controller; 10 s where kube-controller-manager's runs beside it), so
	// CI's gate matrix, which runs the suite once per combination, leaves it to the suite's
	// own run.
	ginkgo.It("allocates from a new ServiceCIDR, blocks its deletion while an address is in use, and removes it once free", ginkgo.Label("deletion-grace"), func(ctx context.Context) {
		f := requireIPAddressMode(ctx)
		family := familyOf(f.serviceRanges[0].Addr())
		prefix := freePrefix(ctx, family)
		cidr := createReadyServiceCIDR(ctx, "netfork-e2e-", prefix)

		ns := testNamespace(ctx)
		ip := prefix.Masked().Addr().Next().Next().Next()
		svc := clusterIPService("in-new-cidr")
		single := corev1.IPFamilyPolicySingleStack
		svc.Spec.IPFamilyPolicy, svc.Spec.IPFamilies, svc.Spec.ClusterIP = &single, []corev1.IPFamily{family}, ip.String()
		svc, err := client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a Service with ClusterIP %s from ServiceCIDR %s", ip, prefix)
		a, err := client.NetworkingV1().IPAddresses().Get(ctx, ip.String(), metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(a.Spec.ParentRef.Name).To(gomega.Equal(svc.Name))
		gomega.Eventually(ctx, func(ctx context.Context) (map[string]bool, error) {
			m, err := scrape(ctx)
			return labelValues(m, "kube_apiserver_clusterip_allocator_available_ips", "cidr"), err
		}).WithTimeout(readyTimeout).Should(gomega.HaveKey(prefix.String()), "no clusterip_allocator metrics for the new ServiceCIDR")

		gomega.Expect(client.NetworkingV1().ServiceCIDRs().Delete(ctx, cidr.Name, metav1.DeleteOptions{})).To(gomega.Succeed())
		gomega.Eventually(ctx, func(ctx context.Context) (string, error) {
			c, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, cidr.Name, metav1.GetOptions{})
			if err != nil {
				return "", err
			}
			for _, cond := range c.Status.Conditions {
				if cond.Type == networkingv1.ServiceCIDRConditionReady {
					return string(cond.Status) + "/" + cond.Reason, nil
				}
			}
			return "", nil
		}).WithTimeout(readyTimeout).Should(gomega.Equal("False/"+networkingv1.ServiceCIDRReasonTerminating),
			"ServiceCIDR %s holding %s in use never became Ready=False reason Terminating", cidr.Name, ip)
		if netforkCIDRController(ctx) {
			gomega.Eventually(ctx, func(ctx context.Context) ([]string, error) {
				return eventReasons(ctx, cidr.Name)
			}).WithTimeout(readyTimeout).Should(gomega.ContainElement("DeletionBlocked"), "no DeletionBlocked event for ServiceCIDR %s", cidr.Name)
		}
		_, err = client.NetworkingV1().ServiceCIDRs().Get(ctx, cidr.Name, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "ServiceCIDR %s went while %s was in use", cidr.Name, ip)

		gomega.Expect(client.CoreV1().Services(ns).Delete(ctx, svc.Name, metav1.DeleteOptions{})).To(gomega.Succeed())
		gomega.Eventually(ctx, func(ctx context.Context) error {
			_, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, cidr.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			return fmt.Errorf("ServiceCIDR %s still exists", cidr.Name)
		}).WithTimeout(cidrDeletionTimeout).WithPolling(2 * time.Second).Should(gomega.Succeed())
	})
})

var _ = ginkgo.Describe("Allocator metrics [KEP-1880] [KEP-3668]", ginkgo.Label("KEP-1880", "KEP-3668"), func() {
	ginkgo.It("exports the clusterip_allocator family per service range and the nodeport_allocator family", func(ctx context.Context) {
		f := clusterFacts(ctx)
		want := map[string]bool{}
		for _, p := range f.serviceRanges {
			want[p.String()] = true
		}
		if f.ipAddressMode {
			for _, p := range readyServiceCIDRPrefixes(ctx) {
				want[p.String()] = true
			}
		}
		gomega.Eventually(ctx, func(ctx context.Context) error {
			m, err := scrape(ctx)
			if err != nil {
				return err
			}
			var problems []string
			for _, metric := range []string{"kube_apiserver_clusterip_allocator_allocated_ips", "kube_apiserver_clusterip_allocator_available_ips"} {
				have := labelValues(m, metric, "cidr")
				for cidr := range want {
					if !have[cidr] {
						problems = append(problems, fmt.Sprintf("%s has no cidr=%q", metric, cidr))
					}
				}
			}
			allocated, available := m["kube_apiserver_nodeport_allocator_allocated_ports"], m["kube_apiserver_nodeport_allocator_available_ports"]
			if len(allocated) != 1 || len(available) != 1 {
				problems = append(problems, fmt.Sprintf("nodeport_allocator allocated_ports %d samples, available_ports %d, want one each", len(allocated), len(available)))
			} else if sum := int(allocated[0].Value + available[0].Value); sum != f.nodePortSize {
				problems = append(problems, fmt.Sprintf("nodeport_allocator allocated+available = %d, want the range's %d ports", sum, f.nodePortSize))
			}
			if len(problems) > 0 {
				return fmt.Errorf("%s", strings.Join(problems, "; "))
			}
			return nil
		}).WithTimeout(readyTimeout).WithPolling(2 * time.Second).Should(gomega.Succeed())
	})
})

// serviceCIDRPrefixes are every ServiceCIDR's prefixes.
func serviceCIDRPrefixes(ctx context.Context) []netip.Prefix {
	return prefixesOf(ctx, false)
}

// readyServiceCIDRPrefixes are the prefixes of ServiceCIDRs that are Ready and not being deleted.
func readyServiceCIDRPrefixes(ctx context.Context) []netip.Prefix {
	return prefixesOf(ctx, true)
}

// prefixesOf lists ServiceCIDRs' prefixes, only the ready ones when readyOnly.
func prefixesOf(ctx context.Context, readyOnly bool) []netip.Prefix {
	list, err := client.NetworkingV1().ServiceCIDRs().List(ctx, metav1.ListOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	var prefixes []netip.Prefix
	for _, c := range list.Items {
		if readyOnly && (c.DeletionTimestamp != nil || !isReady(c)) {
			continue
		}
		for _, p := range c.Spec.CIDRs {
			prefixes = append(prefixes, netip.MustParsePrefix(p))
		}
	}
	return prefixes
}

// isReady tells whether a ServiceCIDR has condition Ready=True.
func isReady(c networkingv1.ServiceCIDR) bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == networkingv1.ServiceCIDRConditionReady {
			return cond.Status == metav1.ConditionTrue
		}
	}
	return false
}

// readyCondition is a ServiceCIDR's Ready status, "" when it has none yet.
// createReadyServiceCIDR creates a ServiceCIDR of prefix, deletes it after the spec (not
// waited for: netfork keeps a ServiceCIDR for 60 s after its deletion starts, and while an
// address in it is in use) and waits until it is Ready.
func createReadyServiceCIDR(ctx context.Context, generateName string, prefix netip.Prefix) *networkingv1.ServiceCIDR {
	cidr, err := client.NetworkingV1().ServiceCIDRs().Create(ctx, &networkingv1.ServiceCIDR{
		ObjectMeta: metav1.ObjectMeta{GenerateName: generateName},
		Spec:       networkingv1.ServiceCIDRSpec{CIDRs: []string{prefix.String()}},
	}, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func(ctx context.Context) {
		err := client.NetworkingV1().ServiceCIDRs().Delete(ctx, cidr.Name, metav1.DeleteOptions{})
		if !apierrors.IsNotFound(err) {
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}
	})
	gomega.Eventually(ctx, func(ctx context.Context) (string, error) {
		return readyCondition(ctx, cidr.Name)
	}).WithTimeout(readyTimeout).Should(gomega.Equal("True"), "ServiceCIDR %s %s never Ready", cidr.Name, prefix)
	return cidr
}

func readyCondition(ctx context.Context, name string) (string, error) {
	c, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	for _, cond := range c.Status.Conditions {
		if cond.Type == networkingv1.ServiceCIDRConditionReady {
			return string(cond.Status), nil
		}
	}
	return "", nil
}

// containing returns the prefixes that contain addr.
func containing(prefixes []netip.Prefix, addr netip.Addr) []netip.Prefix {
	var in []netip.Prefix
	for _, p := range prefixes {
		if p.Contains(addr) {
			in = append(in, p)
		}
	}
	return in
}

// freePrefix picks a small prefix of family, inside 198.18.0.0/15 or a ULA of netfork's,
// that overlaps no ServiceCIDR.
func freePrefix(ctx context.Context, family corev1.IPFamily) netip.Prefix {
	existing := serviceCIDRPrefixes(ctx)
	base, bits := netip.MustParseAddr("198.19.240.0"), 28
	if family == corev1.IPv6Protocol {
		base, bits = netip.MustParseAddr("fd6e:6574:6532::"), 124
	}
	for k := 0; k < 64; k++ {
		p := netip.PrefixFrom(base, bits)
		overlaps := false
		for _, e := range existing {
			overlaps = overlaps || e.Overlaps(p)
		}
		if !overlaps {
			return p
		}
		for range 16 {
			base = base.Next()
		}
	}
	ginkgo.Fail(fmt.Sprintf("no free %s prefix among 64 candidates: ServiceCIDRs %v", family, existing))
	return netip.Prefix{}
}

// netforkCIDRController tells whether netfork's ServiceCIDR deletion controller runs:
// it holds a Lease of its own, where kube-controller-manager's runs without one.
func netforkCIDRController(ctx context.Context) bool {
	_, err := client.CoordinationV1().Leases(metav1.NamespaceSystem).Get(ctx, netforkCIDRControllerLease, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false
	}
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return true
}

// eventReasons are the reasons of the events about the cluster-scoped object name.
func eventReasons(ctx context.Context, name string) ([]string, error) {
	list, err := client.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.name", name).String(),
	})
	if err != nil {
		return nil, err
	}
	var reasons []string
	for _, e := range list.Items {
		reasons = append(reasons, e.Reason)
	}
	return reasons, nil
}
