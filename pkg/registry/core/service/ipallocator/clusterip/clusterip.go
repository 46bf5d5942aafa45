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

package clusterip

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	netutils "k8s.io/utils/net"
)

// Index indexes the Service informer by every ClusterIP, in canonical form.
const Index = "netfork.io/clusterip"

// Parse reads a ClusterIP as a stored Service may hold it, including the forms
// clusters before 1.20 accepted (IPv4 octets with leading zeros, read as
// decimal: 010.096.000.010 is 10.96.0.10), as the address its IPAddress is named by.
func Parse(s string) (netip.Addr, bool) {
	ip := netutils.ParseIPSloppy(s)
	if ip == nil {
		return netip.Addr{}, false
	}
	addr, ok := netip.AddrFromSlice(ip)
	return addr.Unmap(), ok
}

// Of are svc's ClusterIPs that parse, canonical, in order.
func Of(svc *corev1.Service) []netip.Addr {
	addrs := make([]netip.Addr, 0, len(svc.Spec.ClusterIPs))
	for _, s := range svc.Spec.ClusterIPs {
		if addr, ok := Parse(s); ok {
			addrs = append(addrs, addr)
		}
	}
	return addrs
}

// Holds tells whether svc has addr among its ClusterIPs.
func Holds(svc *corev1.Service, addr netip.Addr) bool {
	for _, s := range svc.Spec.ClusterIPs {
		if a, ok := Parse(s); ok && a == addr {
			return true
		}
	}
	return false
}

// AddIndexer adds Index to the Service informer unless it has it; it fails
// once the informer has started.
func AddIndexer(informer cache.SharedIndexInformer) error {
	if _, ok := informer.GetIndexer().GetIndexers()[Index]; ok {
		return nil
	}
	return informer.AddIndexers(cache.Indexers{Index: func(obj any) ([]string, error) {
		svc, ok := obj.(*corev1.Service)
		if !ok {
			return nil, nil
		}
		addrs := Of(svc)
		keys := make([]string, len(addrs))
		for i, a := range addrs {
			keys[i] = a.String()
		}
		return keys, nil
	}})
}

// Holders are the Services of indexer, which has Index, that hold addr.
func Holders(indexer cache.Indexer, addr netip.Addr) ([]*corev1.Service, error) {
	objs, err := indexer.ByIndex(Index, addr.String())
	if err != nil {
		return nil, err
	}
	svcs := make([]*corev1.Service, 0, len(objs))
	for _, obj := range objs {
		if svc, ok := obj.(*corev1.Service); ok {
			svcs = append(svcs, svc)
		}
	}
	return svcs, nil
}
