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

package ipallocator

import (
	"fmt"
	"math/rand/v2"
	"net"
	"testing"

	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"
	netutils "k8s.io/utils/net"
)

// BenchmarkRangeAllocateNext measures one AllocateNext and the Release of the
// address it returned on a /16 (65278 addresses in the dynamic band) with a
// fixed share of the dynamic band allocated, through upstream's interface, on
// netfork's Range and on upstream's over the same addresses.
func BenchmarkRangeAllocateNext(b *testing.B) {
	const cidr = "10.96.0.0/16"
	for _, fill := range []float64{0.01, 0.50, 0.999} {
		used := dynamicBandSubset(b, cidr, fill)
		name := fmt.Sprintf("range=slash16/used=%g%%", fill*100)
		b.Run("impl=netfork/"+name, func(b *testing.B) {
			benchAllocateNextRelease(b, fillRange(b, newTestRange(b, cidr), used))
		})
		b.Run("impl=upstream/"+name, func(b *testing.B) {
			benchAllocateNextRelease(b, fillRange(b, newUpstreamRange(b, cidr), used))
		})
	}
	// With metrics on, each allocation also sets two gauges, bumps a counter
	// and observes its duration: a constant cost, whatever the fill.
	used := dynamicBandSubset(b, cidr, 0.999)
	b.Run("impl=netfork-metrics/range=slash16/used=99.9%", func(b *testing.B) {
		r := newTestRange(b, cidr)
		r.EnableMetrics()
		benchAllocateNextRelease(b, fillRange(b, r, used))
	})
}

// dynamicBandSubset is a fixed random share fill of cidr's dynamic band.
func dynamicBandSubset(b *testing.B, cidr string, fill float64) []net.IP {
	r := newTestRange(b, cidr)
	dynamic := r.size - r.band
	rng := rand.New(rand.NewPCG(5, 6))
	var ips []net.IP
	for _, i := range rng.Perm(dynamic)[:int(float64(dynamic)*fill)] {
		ip, err := netutils.GetIndexedIP(mustCIDR(b, cidr), 1+r.band+i)
		if err != nil {
			b.Fatal(err)
		}
		ips = append(ips, ip)
	}
	return ips
}

func fillRange(b *testing.B, r upstreamipallocator.Interface, ips []net.IP) upstreamipallocator.Interface {
	for _, ip := range ips {
		if err := r.Allocate(ip); err != nil {
			b.Fatalf("Allocate(%s): %v", ip, err)
		}
	}
	return r
}

func benchAllocateNextRelease(b *testing.B, r upstreamipallocator.Interface) {
	b.ReportAllocs()
	for b.Loop() {
		ip, err := r.AllocateNext()
		if err != nil {
			b.Fatalf("AllocateNext: %v", err)
		}
		if err := r.Release(ip); err != nil {
			b.Fatal(err)
		}
	}
}
