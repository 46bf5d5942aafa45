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
	"bytes"
	"errors"
	"slices"
	"testing"

	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamportallocator "k8s.io/kubernetes/pkg/registry/core/service/portallocator"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/registrytest"
)

// portLayouts are the ranges the tests cover: the KEP-3668 examples
// (30000-32767, 20000-32767, 32567-32767) and the sizes around the 16-port
// threshold below which there is no band.
var portLayouts = []struct {
	portRange  string
	size, band int
}{
	{portRange: "30000-30014", size: 15, band: 0},
	{portRange: "30000-30015", size: 16, band: 0},
	{portRange: "30000-30016", size: 17, band: 16},
	{portRange: "32567-32767", size: 201, band: 16},
	{portRange: "30000-32767", size: 2768, band: 86},
	{portRange: "20000-32767", size: 12768, band: 128},
}

// TestPortAllocatorExhaustionOrder checks the KEP-3668 order: AllocateNext
// hands out the whole dynamic band, then the static band, then ErrFull.
func TestPortAllocatorExhaustionOrder(t *testing.T) {
	for _, l := range portLayouts {
		t.Run(l.portRange, func(t *testing.T) {
			a := newTestAllocator(t, l.portRange)
			if got, want := a.Free(), newUpstreamAllocator(t, l.portRange).Free(); got != l.size || got != want {
				t.Fatalf("Free = %d, want %d (upstream's %d)", got, l.size, want)
			}
			base := a.portRange.Base
			seen := map[int]bool{}
			next := func(lo, hi int) {
				t.Helper()
				port, err := a.AllocateNext()
				if err != nil {
					t.Fatalf("AllocateNext after %d: %v", len(seen), err)
				}
				if port < lo || port > hi || seen[port] {
					t.Fatalf("AllocateNext after %d = %d, want a new port in [%d, %d]", len(seen), port, lo, hi)
				}
				seen[port] = true
			}
			for range l.size - l.band {
				next(base+l.band, base+l.size-1)
			}
			for range l.band {
				next(base, base+l.band-1)
			}
			if port, err := a.AllocateNext(); !errors.Is(err, upstreamportallocator.ErrFull) {
				t.Fatalf("AllocateNext on a full range = %d, %v; want upstream's ErrFull", port, err)
			}
			if a.Free() != 0 || a.Used() != l.size {
				t.Errorf("Free, Used = %d, %d on a full range; want 0, %d", a.Free(), a.Used(), l.size)
			}
		})
	}
}

func TestPortAllocatorAllocate(t *testing.T) {
	type want int
	const (
		ok want = iota
		notInRange
		allocated
	)
	tests := []struct {
		portRange string
		ports     []int
		want      []want
	}{{
		portRange: "30000-32767",
		ports:     []int{29999, 32768, 0, 30000, 30085, 30086, 32767, 30085},
		want:      []want{notInRange, notInRange, notInRange, ok, ok, ok, ok, allocated},
	}, {
		portRange: "30000-30014",
		ports:     []int{30000, 30014, 30015, 30014},
		want:      []want{ok, ok, notInRange, allocated},
	}}
	for _, tc := range tests {
		t.Run(tc.portRange, func(t *testing.T) {
			a := newTestAllocator(t, tc.portRange)
			upstream := newUpstreamAllocator(t, tc.portRange)
			for i, port := range tc.ports {
				err := a.Allocate(port)
				switch tc.want[i] {
				case ok:
					if err != nil || !a.Has(port) {
						t.Errorf("Allocate(%d) = %v, Has %v; want nil, true", port, err, a.Has(port))
					}
				case notInRange:
					var e *upstreamportallocator.ErrNotInRange
					if !errors.As(err, &e) || a.Has(port) {
						t.Errorf("Allocate(%d) = %v, Has %v; want upstream's *ErrNotInRange, false", port, err, a.Has(port))
					}
				case allocated:
					if !errors.Is(err, upstreamportallocator.ErrAllocated) {
						t.Errorf("Allocate(%d) = %v, want upstream's ErrAllocated", port, err)
					}
				}
				// The Service storage shows the text in its 422: it must be upstream's.
				if uerr := upstream.Allocate(port); registrytest.ErrText(uerr) != registrytest.ErrText(err) {
					t.Errorf("Allocate(%d) = %q, upstream's %q", port, registrytest.ErrText(err), registrytest.ErrText(uerr))
				}
			}
		})
	}
}

func TestPortAllocatorReleaseAndReuse(t *testing.T) {
	a := newTestAllocator(t, "30000-32767")
	for _, port := range []int{30001, 31000} {
		t.Run("", func(t *testing.T) {
			if err := a.Allocate(port); err != nil {
				t.Fatalf("Allocate(%d): %v", port, err)
			}
			for _, release := range []int{29999, port, port} {
				if err := a.Release(release); err != nil {
					t.Errorf("Release(%d) = %v, want nil as upstream", release, err)
				}
			}
			if a.Has(port) || a.Used() != 0 {
				t.Errorf("Has, Used = %v, %d after Release; want false, 0", a.Has(port), a.Used())
			}
			if err := a.Allocate(port); err != nil {
				t.Errorf("Allocate(%d) after Release = %v", port, err)
			}
			if err := a.Release(port); err != nil {
				t.Fatalf("Release(%d): %v", port, err)
			}
		})
	}
}

func TestPortAllocatorSnapshotMatchesUpstream(t *testing.T) {
	tests := []struct {
		portRange string
		ports     []int
	}{
		{portRange: "30000-32767", ports: []int{30000, 30085, 30086, 32767}},
		{portRange: "30000-30014", ports: []int{30000, 30014}},
		{portRange: "30000-32767", ports: nil},
	}
	for _, tc := range tests {
		t.Run(tc.portRange, func(t *testing.T) {
			a := newTestAllocator(t, tc.portRange)
			upstream := newUpstreamAllocator(t, tc.portRange)
			for _, port := range tc.ports {
				if err := a.Allocate(port); err != nil {
					t.Fatalf("Allocate(%d): %v", port, err)
				}
				if err := upstream.Allocate(port); err != nil {
					t.Fatalf("upstream Allocate(%d): %v", port, err)
				}
			}
			var got, want api.RangeAllocation
			if err := a.Snapshot(&got); err != nil {
				t.Fatalf("Snapshot: %v", err)
			}
			if err := upstream.Snapshot(&want); err != nil {
				t.Fatalf("upstream Snapshot: %v", err)
			}
			if got.Range != want.Range || !bytes.Equal(got.Data, want.Data) {
				t.Fatalf("Snapshot = %q %x, upstream's %q %x", got.Range, got.Data, want.Range, want.Data)
			}
			restored, err := NewFromSnapshot(&want)
			if err != nil {
				t.Fatalf("NewFromSnapshot: %v", err)
			}
			var gotPorts []int
			restored.ForEach(func(p int) { gotPorts = append(gotPorts, p) })
			if !slices.Equal(gotPorts, tc.ports) {
				t.Errorf("restored ForEach = %v, want %v", gotPorts, tc.ports)
			}
		})
	}
}

func TestPortAllocatorRestoreOtherRange(t *testing.T) {
	a := newTestAllocator(t, "30000-32767")
	err := a.Restore(mustPortRange(t, "30000-32000"), []byte{0x01})
	if !errors.Is(err, upstreamportallocator.ErrMismatchedNetwork) || a.Used() != 0 {
		t.Errorf("Restore of another range = %v, Used %d; want upstream's ErrMismatchedNetwork wrapped, nothing loaded", err, a.Used())
	}
}
