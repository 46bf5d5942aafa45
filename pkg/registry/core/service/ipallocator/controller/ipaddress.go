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

package controller

import (
	"net"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator/clusterip"
)

// managedBy is the value of the managed-by label on the IPAddresses of
// Services. It is upstream's allocator's, so that IPAddresses written by
// netfork and by upstream apiservers sharing the etcd are told apart by
// nothing and neither repair loop flags the other's.
const managedBy = upstreamipallocator.ControllerName

// newIPAddress is the IPAddress of svc's ClusterIP ip, made the way the
// ClusterIP allocators make it: named by the canonical address, labeled with
// its family and manager, and pointing at svc.
func newIPAddress(ip net.IP, svc *corev1.Service) *networkingv1.IPAddress {
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{
			Name:   ip.String(),
			Labels: wantLabels(ip),
		},
		Spec: networkingv1.IPAddressSpec{
			ParentRef: &networkingv1.ParentReference{
				Group:     "",
				Resource:  "services",
				Namespace: svc.Namespace,
				Name:      svc.Name,
			},
		},
	}
}

// wantLabels are the labels the allocators put on the IPAddress of ip.
func wantLabels(ip net.IP) map[string]string {
	return map[string]string{
		networkingv1.LabelIPAddressFamily: string(ipFamilyOf(ip)),
		networkingv1.LabelManagedBy:       managedBy,
	}
}

// labelsMatch reports whether a carries the labels the allocators put on the IPAddress of ip.
func labelsMatch(a *networkingv1.IPAddress, ip net.IP) bool {
	for k, v := range wantLabels(ip) {
		if a.Labels[k] != v {
			return false
		}
	}
	return true
}

// managedByAllocator reports whether a was made by a ClusterIP allocator,
// netfork's or upstream's.
func managedByAllocator(a *networkingv1.IPAddress) bool {
	return a.Labels[networkingv1.LabelManagedBy] == managedBy
}

// managedByOther reports whether a names a manager other than the ClusterIP
// allocators. Such an IPAddress is never changed or deleted by the repair loop:
// it is another controller's reservation of the address.
func managedByOther(a *networkingv1.IPAddress) bool {
	m := a.Labels[networkingv1.LabelManagedBy]
	return m != "" && m != managedBy
}

// serviceRef is the Service a's parentRef names, or false if it names no Service.
func serviceRef(a *networkingv1.IPAddress) (namespace, name string, ok bool) {
	ref := a.Spec.ParentRef
	if ref == nil || ref.Group != "" || ref.Resource != "services" {
		return "", "", false
	}
	return ref.Namespace, ref.Name, true
}

// holdsIP reports whether svc has ip among its ClusterIPs, in whatever form
// the Service holds it (see clusterip.Parse).
func holdsIP(svc *corev1.Service, ip net.IP) bool {
	addr, ok := netip.AddrFromSlice(ip)
	return ok && clusterip.Holds(svc, addr.Unmap())
}

// clusterIPNames are the IPAddress names of svc's ClusterIPs: their canonical
// forms, leaving out what does not parse.
func clusterIPNames(svc *corev1.Service) []string {
	addrs := clusterip.Of(svc)
	names := make([]string, len(addrs))
	for i, a := range addrs {
		names[i] = a.String()
	}
	return names
}
