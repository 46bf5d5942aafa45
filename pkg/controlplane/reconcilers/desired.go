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

package reconcilers

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	endpointsv1 "k8s.io/kubernetes/pkg/api/v1/endpoints"
	"k8s.io/utils/ptr"
)

// SecondarySliceName is the name of the EndpointSlice of the secondary family,
// e.g. "kubernetes-ipv6" in an IPv4-primary cluster. The primary family's keeps
// upstream's name, the Service's, so it stays the same object when the
// Service goes from single- to dual-stack and back.
func SecondarySliceName(service string, family corev1.IPFamily) string {
	return service + "-" + strings.ToLower(string(family))
}

// desiredEndpoints is the Endpoints upstream's lease reconciler writes for the
// members' primary addresses: one subset, upstream's canonical order (its
// RepackSubsets), and the skip-mirror label so the EndpointSliceMirroring
// controller leaves the slices to the apiservers. Terminating members, which
// only netfork's shapes have, are not ready.
func desiredEndpoints(service string, d Decision, ports []corev1.EndpointPort) *corev1.Endpoints {
	subset := corev1.EndpointSubset{Ports: ports}
	for _, m := range d.Members {
		addr := corev1.EndpointAddress{IP: m.Primary}
		if m.Terminating {
			subset.NotReadyAddresses = append(subset.NotReadyAddresses, addr)
		} else {
			subset.Addresses = append(subset.Addresses, addr)
		}
	}
	return &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{
			Name:      service,
			Namespace: metav1.NamespaceDefault,
			Labels:    map[string]string{discoveryv1.LabelSkipMirror: "true"},
		},
		Subsets: endpointsv1.RepackSubsets([]corev1.EndpointSubset{subset}),
	}
}

// desiredPrimarySlice is the EndpointSlice named after the Service. In the
// upstream shape it is what upstream's EndpointsAdapter makes of the
// Endpoints: IPv6 only when every address is, holding the addresses of that
// type in the Endpoints' order with only the ready condition set.
func desiredPrimarySlice(service string, d Decision, ports []corev1.EndpointPort) *discoveryv1.EndpointSlice {
	addressType := discoveryv1.AddressTypeIPv6
	for _, m := range d.Members {
		if familyOf(m.Primary) != corev1.IPv6Protocol {
			addressType = discoveryv1.AddressTypeIPv4
		}
	}
	if len(d.Members) == 0 {
		addressType = discoveryv1.AddressTypeIPv4
	}
	family := corev1.IPFamily(addressType)
	var ready, terminating []string
	for _, m := range d.Members {
		if familyOf(m.Primary) != family {
			continue
		}
		if m.Terminating {
			terminating = append(terminating, m.Primary)
		} else {
			ready = append(ready, m.Primary)
		}
	}
	return newSlice(service, service, addressType, ready, terminating, ports)
}

// desiredSecondarySlice is the slice of the secondary family in the
// dual-stack shape, nil in the others (where an existing one is deleted).
func desiredSecondarySlice(service string, d Decision, family corev1.IPFamily, ports []corev1.EndpointPort) *discoveryv1.EndpointSlice {
	if !d.DualStack() {
		return nil
	}
	var ready, terminating []string
	for _, m := range d.Members {
		if m.Terminating {
			terminating = append(terminating, m.Secondary)
		} else {
			ready = append(ready, m.Secondary)
		}
	}
	sort.Strings(ready)
	sort.Strings(terminating)
	return newSlice(SecondarySliceName(service, family), service, discoveryv1.AddressType(family), ready, terminating, ports)
}

// newSlice lists the ready endpoints first and the terminating ones after them,
// as the Endpoints lists its addresses before its not-ready addresses.
func newSlice(name, service string, addressType discoveryv1.AddressType, ready, terminating []string, ports []corev1.EndpointPort) *discoveryv1.EndpointSlice {
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: metav1.NamespaceDefault,
			Labels:    map[string]string{discoveryv1.LabelServiceName: service},
		},
		AddressType: addressType,
		Endpoints:   []discoveryv1.Endpoint{},
	}
	for _, p := range ports {
		slice.Ports = append(slice.Ports, discoveryv1.EndpointPort{Name: ptr.To(p.Name), Port: ptr.To(p.Port), Protocol: ptr.To(p.Protocol)})
	}
	for _, ip := range ready {
		slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{ip},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
		})
	}
	for _, ip := range terminating {
		slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{ip},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false), Serving: ptr.To(true), Terminating: ptr.To(true)},
		})
	}
	return slice
}
