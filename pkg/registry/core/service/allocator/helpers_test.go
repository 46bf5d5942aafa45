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

package allocator

import (
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"

	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
)

// testRange is the rangeSpec fixtures use when the range itself does not matter.
const testRange = "10.0.0.0/16"

// newTestMap is a map with a fixed random seed, so a failing test replays.
func newTestMap(t testing.TB, size, band int) *AllocationMap {
	t.Helper()
	m, err := NewAllocationMap(size, testRange, band, WithRandSource(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatalf("NewAllocationMap(%d, %q, %d): %v", size, testRange, band, err)
	}
	return m
}

// allocateAll allocates each offset in m, failing the test on any refusal.
func allocateAll(t testing.TB, m *AllocationMap, offsets []int) {
	t.Helper()
	for _, o := range offsets {
		if ok, err := m.Allocate(o); !ok || err != nil {
			t.Fatalf("Allocate(%d) = %v, %v; want true, nil", o, ok, err)
		}
	}
}

// allocated lists m's offsets in ForEach order.
func allocated(m upstreamallocator.Interface) []int {
	var got []int
	m.ForEach(func(o int) { got = append(got, o) })
	return got
}

// upstreamSnapshot is what upstream's bitmap stores for offsets over size.
func upstreamSnapshot(t testing.TB, size, band int, offsets []int) []byte {
	t.Helper()
	u := upstreamallocator.NewAllocationMapWithOffset(size, testRange, band)
	for _, o := range offsets {
		if ok, err := u.Allocate(o); !ok || err != nil {
			t.Fatalf("upstream Allocate(%d) = %v, %v; want true, nil", o, ok, err)
		}
	}
	_, data := u.Snapshot()
	return data
}

// span is the offsets [lo, hi) in order.
func span(lo, hi int) []int {
	s := make([]int, 0, max(hi-lo, 0))
	for o := lo; o < hi; o++ {
		s = append(s, o)
	}
	return s
}

// randomSubset is n distinct offsets of [lo, hi), sorted, drawn with r.
func randomSubset(r *rand.Rand, lo, hi, n int) []int {
	s := span(lo, hi)
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	s = s[:n]
	slices.Sort(s)
	return s
}

// nthUsable is the address at offset o of a legacy ClusterIP bitmap over p, which starts after the network address.
func nthUsable(p netip.Prefix, o int) netip.Addr {
	a := p.Masked().Addr().Next()
	for range o {
		a = a.Next()
	}
	return a
}
