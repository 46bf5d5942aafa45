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
	"net/netip"

	"github.com/onsi/gomega"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// bandOffset is KEP-3070/3668's static band size, min(max(16, size/step), max) and 0
// for ranges of 16 or fewer; upstream's allocators compute it from the whole range.
func bandOffset(size uint64, step, maxOffset uint64) uint64 {
	const minOffset = 16
	if size <= minOffset {
		return 0
	}
	return min(max(minOffset, size/step), maxOffset)
}

// clusterIPBand is how many addresses after a range's network address form its static
// band, the lower of the offsets computed from the range's size and from its usable
// addresses (netfork fixed upstream #115316, which used the size), so the spec holds for
// both.
func clusterIPBand(p netip.Prefix) uint64 {
	size := rangeSize(p)
	return min(bandOffset(size, 16, 256), bandOffset(size-2, 16, 256))
}

// nodePortBand is the NodePort range's static band size.
func nodePortBand(size int) int {
	return int(bandOffset(uint64(size), 32, 128))
}

// rangeSize is how many addresses p holds, capped at 2^32 (every band is full by then).
func rangeSize(p netip.Prefix) uint64 {
	hostBits := p.Addr().BitLen() - p.Bits()
	if hostBits >= 32 {
		return 1 << 32
	}
	return 1 << hostBits
}

// indexIn is addr's offset from p's first usable address (p's network address + 1).
func indexIn(p netip.Prefix, addr netip.Addr) uint64 {
	first := p.Masked().Addr().Next().As16()
	a := addr.As16()
	// Subtract with borrow, byte by byte, over the low 8 bytes: ranges are smaller.
	var diff uint64
	var borrow int
	for i := 15; i >= 8; i-- {
		v := int(a[i]) - int(first[i]) - borrow
		borrow = 0
		if v < 0 {
			v += 256
			borrow = 1
		}
		diff |= uint64(v) << (8 * (15 - i))
	}
	return diff
}

// addrAt is p's usable address at index i.
func addrAt(p netip.Prefix, i uint64) netip.Addr {
	a := p.Masked().Addr().Next()
	for ; i > 0; i-- {
		a = a.Next()
	}
	return a
}

// usedClusterIPs are every Service's ClusterIPs.
func usedClusterIPs(ctx context.Context) map[netip.Addr]bool {
	list, err := client.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	used := map[netip.Addr]bool{}
	for _, svc := range list.Items {
		for _, ip := range svc.Spec.ClusterIPs {
			if a, err := netip.ParseAddr(ip); err == nil {
				used[a] = true
			}
		}
	}
	return used
}

// usedNodePorts are every Service's NodePorts.
func usedNodePorts(ctx context.Context) map[int]bool {
	list, err := client.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	used := map[int]bool{}
	for _, svc := range list.Items {
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				used[int(p.NodePort)] = true
			}
		}
	}
	return used
}
