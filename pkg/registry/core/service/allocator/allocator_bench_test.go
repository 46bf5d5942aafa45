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
	"fmt"
	"math/rand/v2"
	"testing"

	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/registrytest"
)

// BenchmarkAllocateNext measures one AllocateNext and the Release of what it
// returned, with a fixed share of the dynamic band allocated, on netfork's map
// and on upstream's bitmap over the same set.
func BenchmarkAllocateNext(b *testing.B) {
	for _, rc := range []struct {
		name       string
		size, band int
		fills      []float64
	}{
		{name: "clusterip-slash16", size: 65534, band: 256, fills: []float64{0.01, 0.50, 0.999}},
		// An IPv4 /12, the largest range upstream's flags allow a bitmap for: the worst case of the summary scan.
		{name: "clusterip-slash12", size: 1<<20 - 2, band: 256, fills: []float64{0.999}},
		{name: "nodeport-30000-32767", size: 2768, band: NodePortBandSize(2768), fills: []float64{0.999}},
	} {
		for _, fill := range rc.fills {
			dynamic := rc.size - rc.band
			used := randomSubset(rand.New(rand.NewPCG(5, 6)), rc.band, rc.size, int(float64(dynamic)*fill))
			// Sub-benchmarks are key=value so that benchstat -col /impl sets the two side by side.
			name := fmt.Sprintf("range=%s/used=%g%%", rc.name, fill*100)

			b.Run("impl=netfork/"+name, func(b *testing.B) {
				m := newTestMap(b, rc.size, rc.band)
				allocateAll(b, m, used)
				registrytest.BenchAllocateNextRelease(b, m)
			})
			b.Run("impl=upstream/"+name, func(b *testing.B) {
				u := upstreamallocator.NewAllocationMapWithOffset(rc.size, testRange, rc.band)
				for _, o := range used {
					if _, err := u.Allocate(o); err != nil {
						b.Fatal(err)
					}
				}
				registrytest.BenchAllocateNextRelease(b, u)
			})
		}
	}
}

// BenchmarkSnapshotRestore measures the Snapshot and Restore an etcd-backed
// allocator runs around each write (upstream's allocator/storage restores
// whenever another apiserver wrote last), on a half-full /16 map.
func BenchmarkSnapshotRestore(b *testing.B) {
	const size, band = 65534, 256
	used := randomSubset(rand.New(rand.NewPCG(7, 8)), 0, size, size/2)
	maps := map[string]upstreamallocator.Snapshottable{
		"netfork":  newTestMap(b, size, band),
		"upstream": upstreamallocator.NewAllocationMapWithOffset(size, testRange, band),
	}
	for _, impl := range []string{"netfork", "upstream"} {
		a := maps[impl]
		for _, o := range used {
			if _, err := a.Allocate(o); err != nil {
				b.Fatal(err)
			}
		}
		b.Run("impl="+impl, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				spec, data := a.Snapshot()
				if err := a.Restore(spec, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
