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
	"bytes"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// Fuzz operations, one per op byte (mod fuzzOps).
const (
	opAllocate     = iota // Allocate(the next two bytes as an offset in [-1, size])
	opAllocateNext        // AllocateNext once
	opRelease             // Release(the next two bytes as an offset in [-1, size])
	opBurst               // AllocateNext 32 times the next byte, to reach full bands
	opCheckpoint          // compare everything, Snapshot against upstream, and Restore a copy
	fuzzOps
)

// FuzzAllocationMap reads its input as a map size, a band size, a random seed
// and a sequence of operations, runs them on an AllocationMap and on a plain
// map of the allocated offsets, and fails when the two disagree, when a value
// is handed out twice or from the wrong band, or when Snapshot differs from
// upstream's snapshot of the same set. Run it with the allocatorfuzz tag (see
// upstream_compat_test.go) to keep the instrumented build small.
func FuzzAllocationMap(f *testing.F) {
	f.Add([]byte{0, 14, 0, 0, 0, 1, opBurst, 1, opCheckpoint})                                     // /28: no band, exhausted
	f.Add([]byte{0, 62, 0, 16, 0, 7, opBurst, 2, opRelease, 0, 20, opAllocateNext, opCheckpoint})  // /26: both bands
	f.Add([]byte{0, 1, 0, 1, 0, 0, opAllocateNext, opAllocateNext, opRelease, 0, 1, opCheckpoint}) // one static value
	f.Add([]byte{0, 65, 0, 64, 0, 3, opAllocate, 0, 64, opBurst, 1, opCheckpoint})                 // band ends at a word edge
	f.Add([]byte{0x0a, 0xd0, 0, 86, 0, 9, opBurst, 84, opCheckpoint, opBurst, 1, opCheckpoint})    // default NodePort range
	f.Add([]byte{0x22, 0x00, 0x01, 0x00, 0, 5, opBurst, 255, opAllocate, 0x10, 0x01, opCheckpoint})
	f.Add([]byte{0, 0, 0, 0, 0, 0, opAllocateNext, opAllocate, 0, 0, opRelease, 0, 0, opCheckpoint}) // empty map

	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzInput{data: data}
		size := int(in.uint16()) % 9000
		band := int(in.uint16()) % (size + 1)
		m, err := NewAllocationMap(size, testRange, band, WithRandSource(rand.NewPCG(uint64(in.uint16()), 0)))
		if err != nil {
			t.Fatal(err)
		}
		model := newFuzzModel(size, band)

		for in.more() {
			switch in.byte() % fuzzOps {
			case opAllocate:
				o := int(in.uint16())%(size+2) - 1
				ok, err := m.Allocate(o)
				model.checkAllocate(t, o, ok, err)
			case opAllocateNext:
				model.checkAllocateNext(t, m)
			case opRelease:
				o := int(in.uint16())%(size+2) - 1
				if err := m.Release(o); err != nil {
					t.Fatalf("Release(%d) = %v", o, err)
				}
				model.release(o)
			case opBurst:
				for range 32 * int(in.byte()) {
					model.checkAllocateNext(t, m)
				}
			case opCheckpoint:
				model.checkAll(t, m)
			}
			model.checkCounts(t, m)
		}
		model.checkAll(t, m)
	})
}

// fuzzInput hands out the fuzzer's bytes, and zeros once they run out.
type fuzzInput struct {
	data []byte
}

func (in *fuzzInput) more() bool { return len(in.data) > 0 }

func (in *fuzzInput) byte() byte {
	if len(in.data) == 0 {
		return 0
	}
	b := in.data[0]
	in.data = in.data[1:]
	return b
}

func (in *fuzzInput) uint16() uint16 {
	return uint16(in.byte())<<8 | uint16(in.byte())
}

// fuzzModel is the obviously right allocator the fuzzer checks against.
type fuzzModel struct {
	size, band int
	used       map[int]bool
	// static and dynamic count used per band, so checks stay O(1) during bursts.
	static, dynamic int
}

func newFuzzModel(size, band int) *fuzzModel {
	return &fuzzModel{size: size, band: band, used: map[int]bool{}}
}

func (f *fuzzModel) counter(o int) *int {
	if o < f.band {
		return &f.static
	}
	return &f.dynamic
}

func (f *fuzzModel) allocate(o int) {
	f.used[o] = true
	*f.counter(o)++
}

func (f *fuzzModel) release(o int) {
	if f.used[o] {
		delete(f.used, o)
		*f.counter(o)--
	}
}

func (f *fuzzModel) checkAllocate(t *testing.T, o int, ok bool, err error) {
	t.Helper()
	switch {
	case o < 0 || o >= f.size:
		if ok || err == nil {
			t.Fatalf("Allocate(%d) outside [0,%d) = %v, %v; want false and an error", o, f.size, ok, err)
		}
	case f.used[o]:
		if ok || err != nil {
			t.Fatalf("Allocate(%d) of an allocated offset = %v, %v; want false, nil", o, ok, err)
		}
	default:
		if !ok || err != nil {
			t.Fatalf("Allocate(%d) of a free offset = %v, %v; want true, nil", o, ok, err)
		}
		f.allocate(o)
	}
}

func (f *fuzzModel) checkAllocateNext(t *testing.T, m *AllocationMap) {
	t.Helper()
	o, ok, err := m.AllocateNext()
	static, dynamic := f.static, f.dynamic
	var lo, hi int
	switch {
	case dynamic < f.size-f.band:
		lo, hi = f.band, f.size
	case static < f.band:
		lo, hi = 0, f.band
	default:
		if o != 0 || ok || err != nil {
			t.Fatalf("AllocateNext on a full map = %d, %v, %v; want 0, false, nil", o, ok, err)
		}
		return
	}
	if !ok || err != nil || o < lo || o >= hi || f.used[o] {
		t.Fatalf("AllocateNext = %d, %v, %v; want a free offset in [%d,%d) (used: static %d, dynamic %d)", o, ok, err, lo, hi, static, dynamic)
	}
	f.allocate(o)
}

func (f *fuzzModel) checkCounts(t *testing.T, m *AllocationMap) {
	t.Helper()
	static, dynamic := f.static, f.dynamic
	if s, d := m.Used(); s != static || d != dynamic || m.Free() != f.size-len(f.used) {
		t.Fatalf("Used, Free = (%d, %d), %d; want (%d, %d), %d", s, d, m.Free(), static, dynamic, f.size-len(f.used))
	}
}

func (f *fuzzModel) checkAll(t *testing.T, m *AllocationMap) {
	t.Helper()
	want := slices.Sorted(maps.Keys(f.used))
	if got := allocated(m); !slices.Equal(got, want) {
		t.Fatalf("ForEach = %v, want %v", got, want)
	}
	for o := -1; o <= f.size; o++ {
		if m.Has(o) != f.used[o] {
			t.Fatalf("Has(%d) = %v, want %v", o, !f.used[o], f.used[o])
		}
	}
	_, snap := m.Snapshot()
	if up := upstreamSnapshot(t, f.size, f.band, want); !bytes.Equal(snap, up) {
		t.Fatalf("Snapshot() = %x, upstream stores %x", snap, up)
	}
	restored := newTestMap(t, f.size, f.band)
	if err := restored.Restore(testRange, snap); err != nil {
		t.Fatal(err)
	}
	if got := allocated(restored); !slices.Equal(got, want) {
		t.Fatalf("ForEach after Restore(Snapshot()) = %v, want %v", got, want)
	}
	f.checkCounts(t, restored)
}
