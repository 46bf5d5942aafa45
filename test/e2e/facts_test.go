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
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// facts is what the suite learned from the cluster once, before specs compare against it.
type facts struct {
	// ipAddressMode is true when Services get IPAddress objects as they are created
	// (MultiCIDRServiceAllocator on), false when they come from the legacy bitmaps.
	ipAddressMode bool
	// serviceRanges are the cluster's default service ranges, primary first: the
	// kubernetes ServiceCIDR's, or in bitmap mode the ones the allocation error names.
	serviceRanges []netip.Prefix
	// nodePortBase and nodePortSize are --service-node-port-range, as the NodePort
	// allocation error names it.
	nodePortBase, nodePortSize int
}

var (
	factsOnce   sync.Once
	factsCached *facts
	factsErr    error
)

// clusterFacts learns the facts on first use; each spec that needs them calls it.
func clusterFacts(ctx context.Context) *facts {
	factsOnce.Do(func() { factsCached, factsErr = learnFacts(ctx) })
	gomega.Expect(factsErr).NotTo(gomega.HaveOccurred(), "learning the cluster's service ranges and allocator")
	return factsCached
}

// learnFacts probes the cluster in a namespace of its own, which it removes.
func learnFacts(ctx context.Context) (*facts, error) {
	ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "netfork-e2e-facts-"},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating a namespace for the probes: %w", err)
	}
	defer func() {
		_ = client.CoreV1().Namespaces().Delete(context.WithoutCancel(ctx), ns.Name, metav1.DeleteOptions{}) // Best effort: namespace deletion is the cluster's job.
	}()
	f := &facts{}
	if f.ipAddressMode, err = probeIPAddressMode(ctx, ns.Name); err != nil {
		return nil, err
	}
	if f.serviceRanges, err = learnServiceRanges(ctx, ns.Name, f.ipAddressMode); err != nil {
		return nil, err
	}
	if f.nodePortBase, f.nodePortSize, err = learnNodePortRange(ctx, ns.Name); err != nil {
		return nil, err
	}
	ginkgo.GinkgoWriter.Printf("cluster facts: IPAddress mode %t, service ranges %v, NodePorts %d-%d\n",
		f.ipAddressMode, f.serviceRanges, f.nodePortBase, f.nodePortBase+f.nodePortSize-1)
	return f, nil
}

// probeIPAddressMode creates a Service and looks for its IPAddress at once: an
// IPAddress allocator writes it before the Service exists, the bitmap allocator
// never does. The kubernetes_feature_enabled metric cannot tell: upstream's
// locked gate reports MultiCIDRServiceAllocator on whatever netfork's says.
func probeIPAddressMode(ctx context.Context, ns string) (bool, error) {
	svc, err := client.CoreV1().Services(ns).Create(ctx, clusterIPService("probe"), metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("creating the probe Service: %w", err)
	}
	_, err = client.NetworkingV1().IPAddresses().Get(ctx, svc.Spec.ClusterIP, metav1.GetOptions{})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	default:
		return false, fmt.Errorf("looking up the probe Service's IPAddress %s: %w", svc.Spec.ClusterIP, err)
	}
}

// learnServiceRanges reads the kubernetes ServiceCIDR in IPAddress mode; in bitmap mode
// it asks for an address outside every range per family and reads the range from the
// allocation error, which upstream and netfork word alike (tools rely on it).
func learnServiceRanges(ctx context.Context, ns string, ipAddressMode bool) ([]netip.Prefix, error) {
	if ipAddressMode {
		cidr, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, "kubernetes", metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("getting the kubernetes ServiceCIDR: %w", err)
		}
		var ranges []netip.Prefix
		for _, c := range cidr.Spec.CIDRs {
			p, err := netip.ParsePrefix(c)
			if err != nil {
				return nil, fmt.Errorf("kubernetes ServiceCIDR: %w", err)
			}
			ranges = append(ranges, p)
		}
		return ranges, nil
	}
	kubernetes, err := client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("getting the kubernetes Service: %w", err)
	}
	var ranges []netip.Prefix
	for _, family := range []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol} {
		outside := outsideIP(family)
		svc := clusterIPService("range-probe")
		single := corev1.IPFamilyPolicySingleStack
		svc.Spec.IPFamilyPolicy, svc.Spec.IPFamilies, svc.Spec.ClusterIP = &single, []corev1.IPFamily{family}, outside
		_, err := client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
		if err == nil {
			return nil, fmt.Errorf("a Service got ClusterIP %s, which the suite uses as an address outside every service range", outside)
		}
		if m := validIPsRE.FindStringSubmatch(err.Error()); m != nil {
			p, perr := netip.ParsePrefix(m[1])
			if perr != nil {
				return nil, fmt.Errorf("allocation error %q: %w", err, perr)
			}
			ranges = append(ranges, p)
		}
	}
	if len(ranges) == 0 {
		return nil, fmt.Errorf("no allocation error named a service range")
	}
	// Primary first: the family of the kubernetes Service's ClusterIP.
	if primary := netip.MustParseAddr(kubernetes.Spec.ClusterIP); len(ranges) == 2 && !ranges[0].Contains(primary) {
		ranges[0], ranges[1] = ranges[1], ranges[0]
	}
	return ranges, nil
}

var (
	// validIPsRE finds the range in upstream's "... is not in the valid range. The range of valid IPs is 10.96.0.0/16".
	validIPsRE = regexp.MustCompile(`The range of valid IPs is (\S+?)(?:$|[\s;,"])`)
	// validPortsRE finds the range in "... The range of valid ports is 30000-32767".
	validPortsRE = regexp.MustCompile(`The range of valid ports is (\d+)-(\d+)`)
)

// outsideIP is an address of family the suite expects outside every service range:
// from 198.18.0.0/15 or a ULA of netfork's, never sent any traffic.
func outsideIP(family corev1.IPFamily) string {
	if family == corev1.IPv6Protocol {
		return "fd6e:6574:6532:ffff::1"
	}
	return "198.19.255.254"
}

// learnNodePortRange asks for NodePort 1 and reads the range from the error.
func learnNodePortRange(ctx context.Context, ns string) (int, int, error) {
	svc := clusterIPService("nodeport-probe")
	svc.Spec.Type = corev1.ServiceTypeNodePort
	svc.Spec.Ports[0].NodePort = 1
	_, err := client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
	if err == nil {
		return 0, 0, fmt.Errorf("a Service got NodePort 1")
	}
	m := validPortsRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, 0, fmt.Errorf("the NodePort error names no range: %v", err)
	}
	first, _ := strconv.Atoi(m[1]) // The expression matched digits.
	last, _ := strconv.Atoi(m[2])
	return first, last - first + 1, nil
}

// clusterIPService is a minimal ClusterIP Service named name, one TCP port.
func clusterIPService(name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}
}

// testNamespace creates a namespace for one spec and deletes it when the spec ends.
func testNamespace(ctx context.Context) string {
	ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "netfork-e2e-"},
	}, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func(ctx context.Context) {
		err := client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
		if !apierrors.IsNotFound(err) {
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}
	})
	return ns.Name
}

// familyOf is an address's IP family.
func familyOf(a netip.Addr) corev1.IPFamily {
	if a.Is4() {
		return corev1.IPv4Protocol
	}
	return corev1.IPv6Protocol
}

// rangeOf returns the range of family among ranges.
func rangeOf(ranges []netip.Prefix, family corev1.IPFamily) (netip.Prefix, bool) {
	for _, p := range ranges {
		if familyOf(p.Addr()) == family {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

// firstIP is a range's first usable address, which the kubernetes Service gets.
func firstIP(p netip.Prefix) netip.Addr {
	return p.Masked().Addr().Next()
}

// joinAddrs shows addresses in messages.
func joinAddrs(addrs []netip.Addr) string {
	var s []string
	for _, a := range addrs {
		s = append(s, a.String())
	}
	return strings.Join(s, ",")
}
