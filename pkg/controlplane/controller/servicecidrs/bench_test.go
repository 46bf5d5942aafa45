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

package servicecidrs

import (
	"fmt"
	"net/netip"
	"testing"

	networkingv1listers "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
)

// BenchmarkBlockingAddress is the cost of deciding a deletion: a ServiceCIDR
// 10.0.0.0/8 being deleted, covered by k ready /20s that hold n addresses,
// so every stretch between them must be looked up and none blocks. It should
// grow with k and stay flat in n.
func BenchmarkBlockingAddress(b *testing.B) {
	for _, k := range []int{1, 100, 1000} {
		for _, n := range []int{10_000, 100_000} {
			b.Run(fmt.Sprintf("cidrs=%d/addresses=%d", k, n), func(b *testing.B) {
				indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
				target := newServiceCIDR("target", []string{"10.0.0.0/8"}, deletingSince(t0))
				if err := indexer.Add(target); err != nil {
					b.Fatal(err)
				}
				var covers []netip.Prefix
				for i := range k {
					p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 4), byte(i&0xf) << 4, 0}), 20)
					covers = append(covers, p)
					if err := indexer.Add(newServiceCIDR(fmt.Sprintf("cover-%d", i), []string{p.String()})); err != nil {
						b.Fatal(err)
					}
				}
				c := &Controller{cidrLister: networkingv1listers.NewServiceCIDRLister(indexer), addresses: newAddressSet()}
				for i := range n {
					p := covers[i%len(covers)]
					c.addresses.insert(addrAt(p, 1+i/len(covers)%4000))
				}

				b.ReportAllocs()
				for b.Loop() {
					if a, blocked := c.blockingAddress(target); blocked {
						b.Fatalf("blocked by %s", a)
					}
				}
			})
		}
	}
}

// addrAt is the address offset places after the start of p.
func addrAt(p netip.Prefix, offset int) netip.Addr {
	a := p.Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v += uint32(offset)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}
