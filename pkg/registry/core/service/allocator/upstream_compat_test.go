//go:build !allocatorfuzz

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

// The tests in this file build upstream's ipallocator and portallocator,
// some 400 packages; the allocatorfuzz tag leaves them out so that the
// instrumented build of a fuzzing run stays small:
//
//	go test -tags allocatorfuzz -run '^$' -fuzz FuzzAllocationMap ./pkg/registry/core/service/allocator/

package allocator

import (
	"net"
	"net/netip"
	"testing"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"
	upstreamportallocator "k8s.io/kubernetes/pkg/registry/core/service/portallocator"
)

// recordingFactory is an upstream allocator factory that records the size and
// band upstream's ipallocator.New or portallocator.New asks for.
func recordingFactory(size, band *int) upstreamallocator.AllocatorWithOffsetFactory {
	return func(m int, rangeSpec string, offset int) (upstreamallocator.Interface, error) {
		*size, *band = m, offset
		return upstreamallocator.NewAllocationMap(m, rangeSpec), nil
	}
}

// TestClusterIPSizesMatchUpstream checks every prefix length of both families
// against the size and band upstream's legacy ipallocator gives the same CIDR.
func TestClusterIPSizesMatchUpstream(t *testing.T) {
	for _, base := range []string{"10.0.0.0", "fd00::"} {
		addr := netip.MustParseAddr(base)
		for bits := 0; bits <= addr.BitLen(); bits++ {
			p := netip.PrefixFrom(addr, bits).Masked()
			t.Run(p.String(), func(t *testing.T) {
				_, ipnet, err := net.ParseCIDR(p.String())
				if err != nil {
					t.Fatal(err)
				}
				var wantMax, wantBand int
				if _, err := upstreamipallocator.New(ipnet, recordingFactory(&wantMax, &wantBand)); err != nil {
					t.Fatal(err)
				}
				if got := UsableAddresses(p); got != wantMax {
					t.Errorf("UsableAddresses = %d, upstream's bitmap size is %d", got, wantMax)
				}
				if got := ClusterIPBandSize(p); got != wantBand {
					t.Errorf("ClusterIPBandSize = %d, upstream's offset is %d", got, wantBand)
				}
			})
		}
	}
}

func TestNodePortSizesMatchUpstream(t *testing.T) {
	for size := 1; size <= 1<<16-1; size++ {
		pr := utilnet.PortRange{Base: 1, Size: size}
		var gotMax, wantBand int
		if _, err := upstreamportallocator.New(pr, recordingFactory(&gotMax, &wantBand)); err != nil {
			t.Fatal(err)
		}
		if got := NodePortBandSize(size); got != wantBand {
			t.Errorf("NodePortBandSize(%d) = %d, upstream's offset is %d", size, got, wantBand)
		}
	}
}

// TestNewAllocatorWithOffsetBehindUpstream puts the map behind upstream's
// portallocator and ipallocator through NewAllocatorWithOffset.
func TestNewAllocatorWithOffsetBehindUpstream(t *testing.T) {
	t.Run("default NodePort range", func(t *testing.T) {
		pr, err := utilnet.ParsePortRange("30000-32767")
		if err != nil {
			t.Fatal(err)
		}
		ports, err := upstreamportallocator.New(*pr, NewAllocatorWithOffset)
		if err != nil {
			t.Fatal(err)
		}
		for i := range pr.Size - 86 {
			p, err := ports.AllocateNext()
			if err != nil || p < 30086 {
				t.Fatalf("AllocateNext #%d = %d, %v; want a port of the dynamic band 30086-32767", i, p, err)
			}
		}
		if p, err := ports.AllocateNext(); err != nil || p >= 30086 {
			t.Fatalf("AllocateNext with the dynamic band full = %d, %v; want a port of the static band", p, err)
		}
	})
	t.Run("/28 of #115316", func(t *testing.T) {
		_, cidr, err := net.ParseCIDR("10.0.0.0/28")
		if err != nil {
			t.Fatal(err)
		}
		ips, err := upstreamipallocator.New(cidr, NewAllocatorWithOffset)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 14 {
			if ip, err := ips.AllocateNext(); err != nil {
				t.Fatalf("AllocateNext #%d = %v, %v", i, ip, err)
			}
		}
		if _, err := ips.AllocateNext(); err == nil {
			t.Fatal("AllocateNext on a full /28 succeeded")
		}
	})
	t.Run("band larger than the map", func(t *testing.T) {
		if alloc, err := NewAllocatorWithOffset(10, testRange, 11); err == nil || alloc != nil {
			t.Fatalf("NewAllocatorWithOffset(10, %q, 11) = %v, %v; want nil and an error", testRange, alloc, err)
		}
	})
}
