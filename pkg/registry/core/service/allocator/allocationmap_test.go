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
	"errors"
	"slices"
	"sync"
	"testing"
)

func TestNewAllocationMapRejectsBadSizes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		size, band int
		wantErr    bool
	}{
		{name: "empty map", size: 0, band: 0},
		{name: "no band", size: 10, band: 0},
		{name: "band is the whole map", size: 10, band: 10},
		{name: "negative size", size: -1, band: 0, wantErr: true},
		{name: "negative band", size: 10, band: -1, wantErr: true},
		{name: "band larger than map", size: 10, band: 11, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewAllocationMap(tc.size, testRange, tc.band)
			if (err != nil) != tc.wantErr {
				t.Fatalf("NewAllocationMap(%d, %q, %d) error = %v, want error %v", tc.size, testRange, tc.band, err, tc.wantErr)
			}
			if err == nil && (m.Size() != tc.size || m.BandSize() != tc.band || m.Free() != tc.size) {
				t.Errorf("Size, BandSize, Free = %d, %d, %d; want %d, %d, %d", m.Size(), m.BandSize(), m.Free(), tc.size, tc.band, tc.size)
			}
		})
	}
}

func TestAllocate(t *testing.T) {
	const size, band = 100, 16
	for _, tc := range []struct {
		name     string
		before   []int
		offset   int
		want     bool
		wantErr  error
		wantBand Band
	}{
		{name: "first static offset", offset: 0, want: true, wantBand: BandStatic},
		{name: "last static offset", offset: band - 1, want: true, wantBand: BandStatic},
		{name: "first dynamic offset", offset: band, want: true, wantBand: BandDynamic},
		{name: "last dynamic offset", offset: size - 1, want: true, wantBand: BandDynamic},
		{name: "static offset already allocated", before: []int{3}, offset: 3, wantBand: BandStatic},
		{name: "dynamic offset already allocated", before: []int{50}, offset: 50, wantBand: BandDynamic},
		{name: "negative offset", offset: -1, wantErr: ErrOutOfRange, wantBand: BandNone},
		{name: "offset size", offset: size, wantErr: ErrOutOfRange, wantBand: BandNone},
		{name: "full map", before: span(1, size), offset: 0, want: true, wantBand: BandStatic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestMap(t, size, band)
			allocateAll(t, m, tc.before)

			got, err := m.Allocate(tc.offset)
			if got != tc.want || !errors.Is(err, tc.wantErr) {
				t.Fatalf("Allocate(%d) = %v, %v; want %v, %v", tc.offset, got, err, tc.want, tc.wantErr)
			}
			if b := m.BandOf(tc.offset); b != tc.wantBand {
				t.Errorf("BandOf(%d) = %v, want %v", tc.offset, b, tc.wantBand)
			}
			wantHas := tc.want || slices.Contains(tc.before, tc.offset)
			if m.Has(tc.offset) != wantHas {
				t.Errorf("Has(%d) = %v, want %v", tc.offset, !wantHas, wantHas)
			}
			n := len(tc.before)
			if tc.want {
				n++
			}
			if m.Free() != size-n {
				t.Errorf("Free() = %d, want %d", m.Free(), size-n)
			}
		})
	}
}

// TestAllocateNextExhaustionOrder checks the KEP-3070 order: every dynamic
// value before any static one, then every static one, then (0, false, nil).
func TestAllocateNextExhaustionOrder(t *testing.T) {
	for _, tc := range []struct {
		name       string
		size, band int
	}{
		{name: "one value, no band", size: 1},
		{name: "one value, all static", size: 1, band: 1},
		{name: "/28 has no band", size: 14},
		{name: "/27", size: 30, band: 16},
		{name: "/26", size: 62, band: 16},
		{name: "/22", size: 1022, band: 64},
		{name: "default NodePort range", size: 2768, band: 86},
		{name: "band is the whole map", size: 100, band: 100},
		{name: "/16 crosses summary words", size: 65534, band: 256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestMap(t, tc.size, tc.band)
			seen := make([]bool, tc.size)
			for i := range tc.size {
				o, ok, err := m.AllocateNext()
				if !ok || err != nil {
					t.Fatalf("AllocateNext #%d = %d, %v, %v; want a value", i, o, ok, err)
				}
				if seen[o] {
					t.Fatalf("AllocateNext #%d handed out %d twice", i, o)
				}
				seen[o] = true
				if dynamic := i < tc.size-tc.band; dynamic != (m.BandOf(o) == BandDynamic) {
					t.Fatalf("AllocateNext #%d = %d in band %v; the dynamic band has %d values", i, o, m.BandOf(o), tc.size-tc.band)
				}
			}
			if o, ok, err := m.AllocateNext(); o != 0 || ok || err != nil {
				t.Fatalf("AllocateNext on a full map = %d, %v, %v; want 0, false, nil", o, ok, err)
			}
			if s, d := m.Used(); s != tc.band || d != tc.size-tc.band || m.Free() != 0 {
				t.Errorf("Used, Free = (%d, %d), %d; want (%d, %d), 0", s, d, m.Free(), tc.band, tc.size-tc.band)
			}
		})
	}
}

func TestAllocateNextEmptyMap(t *testing.T) {
	m := newTestMap(t, 0, 0)
	if o, ok, err := m.AllocateNext(); o != 0 || ok || err != nil {
		t.Fatalf("AllocateNext = %d, %v, %v; want 0, false, nil", o, ok, err)
	}
}

func TestReleaseAndReuse(t *testing.T) {
	const size, band = 300, 20
	for _, tc := range []struct {
		name    string
		before  []int
		release int
		// wantNext is what AllocateNext must give after the release, -1 for "not full".
		wantNext int
	}{
		{name: "dynamic value of a full dynamic band comes back first", before: span(band, size), release: 150, wantNext: 150},
		{name: "static value of a full map comes back", before: span(0, size), release: 7, wantNext: 7},
		{name: "dynamic value comes back before a free static one", before: span(band, size), release: band, wantNext: band},
		{name: "last value of a partial last word", before: span(0, size), release: size - 1, wantNext: size - 1},
		{name: "free value: no-op", before: span(band, size-1), release: 5, wantNext: size - 1},
		{name: "negative offset: no-op", before: span(0, size-1), release: -1, wantNext: size - 1},
		{name: "offset size: no-op", before: span(0, size-1), release: size, wantNext: size - 1},
		{name: "huge offset: no-op", before: span(0, size-1), release: 1 << 40, wantNext: size - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestMap(t, size, band)
			allocateAll(t, m, tc.before)

			if err := m.Release(tc.release); err != nil {
				t.Fatalf("Release(%d) = %v, want nil", tc.release, err)
			}
			if m.Has(tc.release) {
				t.Errorf("Has(%d) after Release = true", tc.release)
			}
			if o, ok, err := m.AllocateNext(); o != tc.wantNext || !ok || err != nil {
				t.Errorf("AllocateNext after Release(%d) = %d, %v, %v; want %d, true, nil", tc.release, o, ok, err, tc.wantNext)
			}
		})
	}
}

func TestForEachAndUsed(t *testing.T) {
	const size, band = 200, 16
	for _, tc := range []struct {
		name                    string
		offsets                 []int
		wantStatic, wantDynamic int
	}{
		{name: "empty"},
		{name: "static only", offsets: []int{0, 9, 15}, wantStatic: 3},
		{name: "dynamic only", offsets: []int{16, 63, 64, 127, 128, 199}, wantDynamic: 6},
		{name: "both bands", offsets: []int{0, 15, 16, 199}, wantStatic: 2, wantDynamic: 2},
		{name: "full", offsets: span(0, size), wantStatic: band, wantDynamic: size - band},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestMap(t, size, band)
			// Allocate in reverse to show ForEach orders by offset, not by allocation.
			reversed := slices.Clone(tc.offsets)
			slices.Reverse(reversed)
			allocateAll(t, m, reversed)

			if got := allocated(m); !slices.Equal(got, tc.offsets) {
				t.Errorf("ForEach = %v, want %v", got, tc.offsets)
			}
			if s, d := m.Used(); s != tc.wantStatic || d != tc.wantDynamic {
				t.Errorf("Used() = %d, %d; want %d, %d", s, d, tc.wantStatic, tc.wantDynamic)
			}
		})
	}
}

func TestHasOutsideMap(t *testing.T) {
	m := newTestMap(t, 10, 0)
	allocateAll(t, m, span(0, 10))
	for _, o := range []int{-1, 10, 64, 1 << 40} {
		t.Run("", func(t *testing.T) {
			if m.Has(o) {
				t.Errorf("Has(%d) = true for an offset outside [0,10)", o)
			}
		})
	}
}

func TestConcurrentAllocateNext(t *testing.T) {
	const size, band, workers = 4096, 64, 8
	m, err := NewAllocationMap(size, testRange, band)
	if err != nil {
		t.Fatal(err)
	}
	got := make([][]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				o, ok, err := m.AllocateNext()
				if err != nil {
					t.Errorf("AllocateNext: %v", err)
					return
				}
				if !ok {
					return
				}
				got[w] = append(got[w], o)
			}
		})
	}
	wg.Wait()

	all := slices.Sorted(slices.Values(slices.Concat(got...)))
	if !slices.Equal(all, span(0, size)) {
		t.Fatalf("%d workers got %d values, want each of [0,%d) once", workers, len(all), size)
	}
	if m.Free() != 0 {
		t.Errorf("Free() = %d after exhaustion, want 0", m.Free())
	}
}

func TestDestroyTwice(t *testing.T) {
	m := newTestMap(t, 10, 0)
	m.Destroy()
	m.Destroy()
}

func TestBandString(t *testing.T) {
	for b, want := range map[Band]string{BandNone: "none", BandStatic: "static", BandDynamic: "dynamic"} {
		if b.String() != want {
			t.Errorf("Band(%d).String() = %q, want %q", b, b.String(), want)
		}
	}
}
