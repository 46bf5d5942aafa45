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

package portallocator

import (
	"fmt"
	"math/rand/v2"
	"testing"

	upstreamportallocator "k8s.io/kubernetes/pkg/registry/core/service/portallocator"
)

// BenchmarkPortAllocatorAllocateNext measures one AllocateNext and the
// Release of the port it returned on upstream's default range with a fixed
// share of the dynamic band allocated, through upstream's interface, on
// netfork's PortAllocator and on upstream's over the same ports.
func BenchmarkPortAllocatorAllocateNext(b *testing.B) {
	const portRange = "30000-32767"
	for _, fill := range []float64{0.50, 0.999} {
		a := newTestAllocator(b, portRange)
		base, size, band := a.portRange.Base, a.portRange.Size, 86
		rng := rand.New(rand.NewPCG(5, 6))
		var used []int
		for _, i := range rng.Perm(size - band)[:int(float64(size-band)*fill)] {
			used = append(used, base+band+i)
		}
		name := fmt.Sprintf("range=30000-32767/used=%g%%", fill*100)
		b.Run("impl=netfork/"+name, func(b *testing.B) {
			benchAllocateNextRelease(b, fillPorts(b, newTestAllocator(b, portRange), used))
		})
		b.Run("impl=upstream/"+name, func(b *testing.B) {
			benchAllocateNextRelease(b, fillPorts(b, newUpstreamAllocator(b, portRange), used))
		})
		b.Run("impl=netfork-metrics/"+name, func(b *testing.B) {
			a := newTestAllocator(b, portRange)
			a.EnableMetrics()
			benchAllocateNextRelease(b, fillPorts(b, a, used))
		})
	}
}

func fillPorts(b *testing.B, a upstreamportallocator.Interface, ports []int) upstreamportallocator.Interface {
	for _, p := range ports {
		if err := a.Allocate(p); err != nil {
			b.Fatalf("Allocate(%d): %v", p, err)
		}
	}
	return a
}

func benchAllocateNextRelease(b *testing.B, a upstreamportallocator.Interface) {
	b.ReportAllocs()
	for b.Loop() {
		port, err := a.AllocateNext()
		if err != nil {
			b.Fatalf("AllocateNext: %v", err)
		}
		if err := a.Release(port); err != nil {
			b.Fatal(err)
		}
	}
}
