package registrytest

import (
	"testing"

	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
)

// BenchAllocateNextRelease measures one AllocateNext and the Release of what it
// returned per iteration, so a's fill level stays where the caller set it.
func BenchAllocateNextRelease(b *testing.B, a upstreamallocator.Interface) {
	b.ReportAllocs()
	for b.Loop() {
		o, ok, err := a.AllocateNext()
		if !ok || err != nil {
			b.Fatalf("AllocateNext = %d, %v, %v", o, ok, err)
		}
		if err := a.Release(o); err != nil {
			b.Fatal(err)
		}
	}
}
