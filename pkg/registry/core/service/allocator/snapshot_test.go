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
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
)

// snapshotSets are the sets over [0, size) whose stored form must match upstream's.
func snapshotSets(r *rand.Rand, size int) map[string][]int {
	sets := map[string][]int{
		"empty": nil,
		"full":  span(0, size),
	}
	if size > 0 {
		sets["first only"] = []int{0}
		sets["last only"] = []int{size - 1}
		sets["all but last"] = span(0, size-1)
		for _, pct := range []int{1, 50, 99} {
			sets[fmt.Sprintf("random %d%%", pct)] = randomSubset(r, 0, size, size*pct/100)
		}
	}
	return sets
}

func TestSnapshotMatchesUpstream(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, size := range []int{0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 1000, 2768, 4096, 4097, 65534, 65535} {
		for name, set := range snapshotSets(r, size) {
			t.Run(fmt.Sprintf("size %d %s", size, name), func(t *testing.T) {
				// The band does not change the stored form; any valid one will do.
				band := NodePortBandSize(size)
				want := upstreamSnapshot(t, size, band, set)

				m := newTestMap(t, size, band)
				allocateAll(t, m, set)
				spec, got := m.Snapshot()
				if spec != testRange || !bytes.Equal(got, want) {
					t.Fatalf("Snapshot() = %q, %x; upstream stores %q, %x", spec, got, testRange, want)
				}

				u := upstreamallocator.NewAllocationMapWithOffset(size, testRange, band)
				if err := u.Restore(spec, got); err != nil {
					t.Fatalf("upstream Restore(netfork snapshot): %v", err)
				}
				if g := allocated(u); !slices.Equal(g, set) {
					t.Errorf("upstream restored %d offsets from netfork's snapshot, want %d", len(g), len(set))
				}

				restored := newTestMap(t, size, band)
				if err := restored.Restore(testRange, want); err != nil {
					t.Fatalf("Restore(upstream snapshot): %v", err)
				}
				if g := allocated(restored); !slices.Equal(g, set) {
					t.Errorf("restored %d offsets from upstream's snapshot, want %d", len(g), len(set))
				}
				static, dynamic := restored.Used()
				wantStatic := len(slices.DeleteFunc(slices.Clone(set), func(o int) bool { return o >= band }))
				if static != wantStatic || dynamic != len(set)-wantStatic || restored.Free() != size-len(set) {
					t.Errorf("after Restore Used, Free = (%d, %d), %d; want (%d, %d), %d",
						static, dynamic, restored.Free(), wantStatic, len(set)-wantStatic, size-len(set))
				}
			})
		}
	}
}

func TestRestoreReplacesState(t *testing.T) {
	const size, band = 500, 16
	m := newTestMap(t, size, band)
	allocateAll(t, m, span(0, size))

	keep := []int{1, 300}
	if err := m.Restore(testRange, upstreamSnapshot(t, size, band, keep)); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if got := allocated(m); !slices.Equal(got, keep) {
		t.Fatalf("ForEach after Restore = %v, want %v", got, keep)
	}
	for range size - len(keep) {
		o, ok, err := m.AllocateNext()
		if !ok || err != nil || slices.Contains(keep, o) {
			t.Fatalf("AllocateNext after Restore = %d, %v, %v; want a value not in %v", o, ok, err, keep)
		}
	}
	if _, ok, _ := m.AllocateNext(); ok {
		t.Errorf("AllocateNext succeeded on a map that Restore and AllocateNext filled")
	}
}

func TestRestoreRangeMismatch(t *testing.T) {
	m, err := NewAllocationMap(254, "10.1.0.0/24", 16)
	if err != nil {
		t.Fatal(err)
	}
	allocateAll(t, m, []int{5})

	err = m.Restore("10.0.0.0/24", []byte{0xff})
	var mismatch *RangeMismatchError
	if !errors.As(err, &mismatch) || mismatch.Stored != "10.0.0.0/24" || mismatch.Configured != "10.1.0.0/24" {
		t.Fatalf("Restore(other range) = %v, want a *RangeMismatchError for stored 10.0.0.0/24, configured 10.1.0.0/24", err)
	}
	if want := `stored range "10.0.0.0/24" does not match configured range "10.1.0.0/24"`; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if got := allocated(m); !slices.Equal(got, []int{5}) {
		t.Errorf("a refused Restore changed the map to %v", got)
	}
}

// TestRestoreStrayBits feeds Restore what upstream accepts but cannot come from
// a map of this size (bits at or past size, leading zero bytes) and checks that
// netfork stores back what upstream stores back, without handing those bits out.
func TestRestoreStrayBits(t *testing.T) {
	const size, band = 30, 16
	for _, tc := range []struct {
		name    string
		data    []byte
		inRange []int
	}{
		{name: "bit size, the old IPv4 broadcast offset", data: []byte{0x40, 0x00, 0x00, 0x01}, inRange: []int{0}},
		{name: "bits in the last byte past size", data: []byte{0xff, 0xff, 0xff, 0xff}, inRange: span(0, size)},
		{name: "bytes far past size", data: []byte{0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02}, inRange: []int{1}},
		{name: "leading zero bytes", data: []byte{0, 0, 0x01, 0x00}, inRange: []int{8}},
		{name: "only stray bits", data: []byte{0x01, 0, 0, 0, 0, 0, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := upstreamallocator.NewAllocationMapWithOffset(size, testRange, band)
			if err := u.Restore(testRange, tc.data); err != nil {
				t.Fatal(err)
			}
			_, want := u.Snapshot()

			m := newTestMap(t, size, band)
			if err := m.Restore(testRange, tc.data); err != nil {
				t.Fatalf("Restore: %v", err)
			}
			if _, got := m.Snapshot(); !bytes.Equal(got, want) {
				t.Errorf("Snapshot() = %x, upstream stores %x", got, want)
			}
			if got := allocated(m); !slices.Equal(got, tc.inRange) {
				t.Errorf("ForEach = %v, want only the offsets below size %v", got, tc.inRange)
			}
			if m.Free() != size-len(tc.inRange) || m.Has(size) {
				t.Errorf("Free, Has(size) = %d, %v; want %d, false", m.Free(), m.Has(size), size-len(tc.inRange))
			}
			// A later Restore without stray bits forgets them.
			if err := m.Restore(testRange, nil); err != nil {
				t.Fatal(err)
			}
			if _, got := m.Snapshot(); len(got) != 0 {
				t.Errorf("Snapshot() after restoring an empty set = %x, want empty", got)
			}
		})
	}
}
