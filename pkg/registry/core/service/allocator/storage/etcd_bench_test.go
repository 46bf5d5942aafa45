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

package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
	upstreamallocatorstorage "k8s.io/kubernetes/pkg/registry/core/service/allocator/storage"

	"github.com/netfork/netfork/pkg/registry/core/service/allocator"
	"github.com/netfork/netfork/pkg/registry/core/service/internal/registrytest"
)

// BenchmarkEtcdAllocateNext measures one AllocateNext and the Release of what
// it returned, each a compare-and-swap in the package's embedded etcd, on a
// half-full /16 bitmap with no other writer: netfork's binding against
// upstream's Etcd, which reads the object before every write and restores
// the whole map from it; once from one caller, once from 100 at a time.
func BenchmarkEtcdAllocateNext(b *testing.B) {
	const size, band, rangeSpec = 65534, 256, "10.96.0.0/16"
	half, err := allocator.NewAllocationMap(size, rangeSpec, band)
	if err != nil {
		b.Fatal(err)
	}
	for _, o := range rand.New(rand.NewPCG(7, 8)).Perm(size)[:size/2] {
		if _, err := half.Allocate(o); err != nil {
			b.Fatal(err)
		}
	}
	_, data := half.Snapshot()

	for _, callers := range []int{1, 100} {
		bench := registrytest.BenchAllocateNextRelease
		if callers > 1 {
			bench = func(b *testing.B, a upstreamallocator.Interface) { benchParallel(b, a, callers) }
		}
		b.Run(fmt.Sprintf("impl=netfork/range=slash16/used=50%%/callers=%d", callers), func(b *testing.B) {
			s := newTestStorage(b)
			s.seed(b, &api.RangeAllocation{Range: rangeSpec, Data: data})
			e := s.newBinding(b, size, band, rangeSpec)
			if err := e.Init(context.Background()); err != nil {
				b.Fatal(err)
			}
			bench(b, e)
		})
		b.Run(fmt.Sprintf("impl=upstream/range=slash16/used=50%%/callers=%d", callers), func(b *testing.B) {
			s := newTestStorage(b)
			s.seed(b, &api.RangeAllocation{Range: rangeSpec, Data: data})
			e, err := upstreamallocatorstorage.NewEtcd(upstreamallocator.NewAllocationMapWithOffset(size, rangeSpec, band), testKey, s.config)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(e.Destroy)
			bench(b, e)
		})
	}
}

// benchParallel is BenchAllocateNextRelease from callers goroutines at once,
// as a Service create storm's requests call the NodePort allocator: netfork
// writes what queued during a write in the next one, upstream writes each.
func benchParallel(b *testing.B, a upstreamallocator.Interface, callers int) {
	b.ReportAllocs()
	b.SetParallelism(max(1, callers/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			o, ok, err := a.AllocateNext()
			if !ok || err != nil {
				b.Errorf("AllocateNext = %d, %v, %v", o, ok, err)
				return
			}
			if err := a.Release(o); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
