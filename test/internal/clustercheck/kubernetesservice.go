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

package clustercheck

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// KubernetesSlices selects the kubernetes Service's EndpointSlices.
var KubernetesSlices = metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=kubernetes"}

// Shape is what the kubernetes Service must look like; zero values mean "whatever is
// consistent".
type Shape struct {
	// Ranges are the cluster's default service ranges, primary first; with none the
	// Service's own first address is taken as the primary family's.
	Ranges []netip.Prefix
	// APIServers, when known, is how many endpoints each slice must hold.
	APIServers int
	// Families is "dual" (every apiserver advertises a pair), "single", or "".
	Families string
}

// KubernetesServiceProblems describes how the kubernetes Service, Endpoints and
// EndpointSlices break the rules of docs/differences.md, or returns nil. Single-stack: the first
// address of the primary range, one EndpointSlice kubernetes of the primary family.
// Dual-stack: RequireDualStack with the first address of both ranges, the primary
// slice kubernetes and the other kubernetes-ipv6 (kubernetes-ipv4 when IPv6 is
// primary), one endpoint per apiserver in each. Either way the Endpoints hold the
// primary slice's addresses, every endpoint is ready on the Service's target port,
// and with the apiserver count known each slice holds that many endpoints.
func KubernetesServiceProblems(ctx context.Context, cs kubernetes.Interface, want Shape) ([]string, error) {
	svc, err := cs.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	var p Problems
	if len(svc.Spec.ClusterIPs) == 0 || len(svc.Spec.Ports) != 1 {
		p.Addf("Service has ClusterIPs %v and %d ports, want addresses and one port", svc.Spec.ClusterIPs, len(svc.Spec.Ports))
		return p.Result(), nil
	}
	dual := svc.Spec.IPFamilyPolicy != nil && *svc.Spec.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack
	switch {
	case want.Families == "dual" && !dual:
		p.Addf("Service is %s, want RequireDualStack: every apiserver advertises a pair", policyName(svc.Spec.IPFamilyPolicy))
	case want.Families == "single" && dual:
		p.Addf("Service is RequireDualStack, want single-stack: the apiservers advertise one address")
	case dual && len(want.Ranges) == 1:
		p.Addf("Service is RequireDualStack but the cluster has one service range %v", want.Ranges)
	}
	primaryFamily := familyOf(netip.MustParseAddr(CanonicalIP(svc.Spec.ClusterIPs[0])))
	if len(want.Ranges) > 0 {
		primaryFamily = familyOf(want.Ranges[0].Addr())
		wantIPs := []string{firstIP(want.Ranges[0])}
		if dual && len(want.Ranges) == 2 {
			wantIPs = append(wantIPs, firstIP(want.Ranges[1]))
		}
		if got := canonicalAll(svc.Spec.ClusterIPs); !slices.Equal(got, wantIPs) {
			p.Addf("Service clusterIPs %v, want %v", svc.Spec.ClusterIPs, wantIPs)
		}
	} else if !dual && len(svc.Spec.ClusterIPs) != 1 {
		p.Addf("single-stack Service has clusterIPs %v", svc.Spec.ClusterIPs)
	}
	port := svc.Spec.Ports[0].TargetPort.IntValue()

	list, err := cs.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx, KubernetesSlices)
	if err != nil {
		return nil, err
	}
	wantSlices := map[string]discoveryv1.AddressType{"kubernetes": discoveryv1.AddressType(primaryFamily)}
	if dual {
		other := corev1.IPv6Protocol
		if primaryFamily == corev1.IPv6Protocol {
			other = corev1.IPv4Protocol
		}
		wantSlices["kubernetes-"+strings.ToLower(string(other))] = discoveryv1.AddressType(other)
	}
	var primary, names []string
	counts := map[string]int{}
	for _, s := range list.Items {
		names = append(names, s.Name)
		if wantType, ok := wantSlices[s.Name]; !ok || s.AddressType != wantType {
			p.Addf("EndpointSlice %s (%s) should not exist", s.Name, s.AddressType)
			continue
		}
		addrs, sliceProblems := SliceAddresses(s, port)
		for _, sp := range sliceProblems {
			p.Addf("%s", sp)
		}
		counts[s.Name] = len(addrs)
		if want.APIServers > 0 && len(addrs) != want.APIServers {
			p.Addf("EndpointSlice %s holds %d endpoints %v, want one per apiserver (%d)", s.Name, len(addrs), addrs, want.APIServers)
		}
		if s.Name == "kubernetes" {
			primary = addrs
		}
	}
	if len(list.Items) != len(wantSlices) {
		p.Addf("EndpointSlices %v, want %d", names, len(wantSlices))
	}
	for _, count := range counts {
		if count != len(primary) {
			p.Addf("EndpointSlices disagree on the number of apiservers: %v", counts)
			break
		}
	}

	endpoints, err := cs.CoreV1().Endpoints(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	var got []string
	for _, subset := range endpoints.Subsets {
		for _, a := range subset.Addresses {
			got = append(got, CanonicalIP(a.IP))
		}
		if len(subset.NotReadyAddresses) > 0 {
			p.Addf("Endpoints list not-ready addresses %v while every apiserver serves", subset.NotReadyAddresses)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, primary) {
		p.Addf("Endpoints hold %v, want the primary EndpointSlice's %v", got, primary)
	}
	return p.Result(), nil
}

// SliceAddresses returns a slice's addresses, canonical and sorted, and what is wrong with
// it: every endpoint ready, of the slice's family, on port.
func SliceAddresses(s discoveryv1.EndpointSlice, port int) ([]string, []string) {
	var addrs, problems []string
	for _, e := range s.Endpoints {
		for _, a := range e.Addresses {
			addr, err := netip.ParseAddr(a)
			if err != nil || discoveryv1.AddressType(familyOf(addr)) != s.AddressType {
				problems = append(problems, fmt.Sprintf("EndpointSlice %s (%s) holds %q", s.Name, s.AddressType, a))
				continue
			}
			addrs = append(addrs, addr.String())
		}
		if e.Conditions.Ready == nil || !*e.Conditions.Ready {
			problems = append(problems, fmt.Sprintf("EndpointSlice %s: endpoint %v is not ready", s.Name, e.Addresses))
		}
	}
	if len(s.Ports) != 1 || s.Ports[0].Port == nil || int(*s.Ports[0].Port) != port {
		problems = append(problems, fmt.Sprintf("EndpointSlice %s has ports %s, want the Service's target port %d only", s.Name, portList(s.Ports), port))
	}
	slices.Sort(addrs)
	return addrs, problems
}

// portList shows a slice's port numbers.
func portList(ports []discoveryv1.EndpointPort) string {
	var nums []string
	for _, p := range ports {
		if p.Port != nil {
			nums = append(nums, strconv.Itoa(int(*p.Port)))
		}
	}
	return "[" + strings.Join(nums, " ") + "]"
}

// familyOf is an address's IP family.
func familyOf(a netip.Addr) corev1.IPFamily {
	if a.Is4() {
		return corev1.IPv4Protocol
	}
	return corev1.IPv6Protocol
}

// firstIP is a range's first usable address, which the kubernetes Service gets.
func firstIP(p netip.Prefix) string {
	return p.Masked().Addr().Next().String()
}

// canonicalAll spells each address as netip does.
func canonicalAll(ips []string) []string {
	out := make([]string, 0, len(ips))
	for _, ip := range ips {
		out = append(out, CanonicalIP(ip))
	}
	return out
}

// policyName shows an optional ipFamilyPolicy.
func policyName(p *corev1.IPFamilyPolicy) string {
	if p == nil {
		return "<unset>"
	}
	return string(*p)
}
