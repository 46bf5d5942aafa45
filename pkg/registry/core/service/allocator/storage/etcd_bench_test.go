package storage

import (
	"context"
	"math/rand/v2"
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
// the whole map from it.
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

	b.Run("impl=netfork/range=slash16/used=50%", func(b *testing.B) {
		s := newTestStorage(b)
		s.seed(b, &api.RangeAllocation{Range: rangeSpec, Data: data})
		e := s.newBinding(b, size, band, rangeSpec)
		if err := e.Init(context.Background()); err != nil {
			b.Fatal(err)
		}
		registrytest.BenchAllocateNextRelease(b, e)
	})
	b.Run("impl=upstream/range=slash16/used=50%", func(b *testing.B) {
		s := newTestStorage(b)
		s.seed(b, &api.RangeAllocation{Range: rangeSpec, Data: data})
		e, err := upstreamallocatorstorage.NewEtcd(upstreamallocator.NewAllocationMapWithOffset(size, rangeSpec, band), testKey, s.config)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(e.Destroy)
		registrytest.BenchAllocateNextRelease(b, e)
	})
}
