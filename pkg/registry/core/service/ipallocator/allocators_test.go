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

package ipallocator

import (
	"net"
	"strings"
	"testing"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"

	"github.com/netfork/netfork/pkg/features"
	allocatorstorage "github.com/netfork/netfork/pkg/registry/core/service/allocator/storage"
	"github.com/netfork/netfork/pkg/registry/core/service/allocator/storage/storagetest"
	"github.com/netfork/netfork/pkg/registry/core/service/internal/registrytest"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
)

// seamConfig is a dual-stack Config over a test's own etcd prefix.
func seamConfig(t *testing.T, s storagetest.Storage) Config {
	client := fake.NewClientset()
	return Config{
		PrimaryRange:   *mustCIDR(t, "10.96.0.0/24"),
		SecondaryRange: *mustCIDR(t, "fd00::/120"),
		StorageConfig:  s.ServiceIPs,
		Client:         client,
		Informers:      informers.NewSharedInformerFactory(client, 0),
		IPAddresses:    ipaddressindex.New(client),
	}
}

// seedBitmap stores snapshot at key as another apiserver would have.
func seedBitmap(t *testing.T, s storagetest.Storage, key string, snapshot *api.RangeAllocation) {
	t.Helper()
	e, err := allocatorstorage.New(mustMap(t, snapshot.Range), key, s.ServiceIPs)
	if err != nil {
		t.Fatalf("storage.New: %v", err)
	}
	defer e.Destroy()
	if err := e.CreateOrUpdate(snapshot); err != nil {
		t.Fatalf("seeding %s: %v", key, err)
	}
}

func TestNewAllocators(t *testing.T) {
	tests := []struct {
		name                   string
		multiCIDR, noDualWrite bool
		// seed is a range stored at a key before start-up.
		seed map[string]string
		// wantRange and wantCIDR tell which allocator serves: netfork's Range or its CIDRAllocator.
		wantRange, wantCIDR bool
		// wantStored is what each key holds after start-up, "" for nothing.
		wantStored map[string]string
		wantErr    string
	}{{
		name:       "bitmap mode: netfork's Ranges, bitmaps left to the repair loop",
		wantRange:  true,
		wantStored: map[string]string{PrimaryBitmapKey: "", SecondaryBitmapKey: ""},
	}, {
		name:       "bitmap mode over stored bitmaps",
		seed:       map[string]string{PrimaryBitmapKey: "10.96.0.0/24", SecondaryBitmapKey: "fd00::/120"},
		wantRange:  true,
		wantStored: map[string]string{PrimaryBitmapKey: "10.96.0.0/24", SecondaryBitmapKey: "fd00::/120"},
	}, {
		name:       "dual-write: bitmaps created at start-up, each with its own range (#127588)",
		multiCIDR:  true,
		wantCIDR:   true,
		wantStored: map[string]string{PrimaryBitmapKey: "10.96.0.0/24", SecondaryBitmapKey: "fd00::/120"},
	}, {
		name:        "no dual-write: no bitmaps",
		multiCIDR:   true,
		noDualWrite: true,
		wantCIDR:    true,
		wantStored:  map[string]string{PrimaryBitmapKey: "", SecondaryBitmapKey: ""},
	}, {
		name:    "bitmap mode, --service-cluster-ip-range changed",
		seed:    map[string]string{PrimaryBitmapKey: "10.0.0.0/24"},
		wantErr: "cannot create cluster IP allocator for 10.96.0.0/24: stored ClusterIP bitmap /ranges/serviceips holds IPv4 range 10.0.0.0/24 but --service-cluster-ip-range says IPv4 range 10.96.0.0/24: ",
	}, {
		name:      "dual-write, secondary bitmap of the primary's family, as upstream #127588 left it",
		multiCIDR: true,
		seed:      map[string]string{SecondaryBitmapKey: "10.96.0.0/24"},
		wantErr:   "stored ClusterIP bitmap /ranges/secondaryserviceips holds IPv4 range 10.96.0.0/24 but the secondary range of --service-cluster-ip-range says IPv6 range fd00::/120: ",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := storagetest.New(t)
			for key, rangeSpec := range tc.seed {
				seedBitmap(t, s, key, &api.RangeAllocation{Range: rangeSpec})
			}

			c := seamConfig(t, s)
			switch {
			case !tc.multiCIDR:
				c.Allocation = features.Bitmaps
			case !tc.noDualWrite:
				c.Allocation = features.IPAddressesDualWrite
			}
			a, err := NewAllocators(c)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("NewAllocators = %v, want one line containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewAllocators: %v", err)
			}
			t.Cleanup(a.Destroy)

			for family, alloc := range a.ByFamily {
				_, isRange := alloc.(*Range)
				c, isCIDR := alloc.(*CIDRAllocator)
				if isRange != tc.wantRange || isCIDR != tc.wantCIDR {
					t.Errorf("%s allocator is %T", family, alloc)
				}
				if isCIDR && (c.bitmap == nil) != tc.noDualWrite {
					t.Errorf("%s allocator dual-writes: %t, want %t", family, c.bitmap != nil, !tc.noDualWrite)
				}
			}
			if tc.noDualWrite != (a.PrimaryBitmap == nil) || tc.noDualWrite != (a.SecondaryBitmap == nil) {
				t.Errorf("bitmap registries %v, %v with dual-write disabled %v", a.PrimaryBitmap, a.SecondaryBitmap, tc.noDualWrite)
			}
			for key, want := range tc.wantStored {
				if got := storedRange(t, s, key); got != want {
					t.Errorf("%s holds range %q after start-up, want %q", key, got, want)
				}
			}
		})
	}
}

// TestBitmapModeAllocatesThroughEtcd follows a bitmap-mode start: the repair
// loop's first pass creates the bitmap, then Services allocate through it.
func TestBitmapModeAllocatesThroughEtcd(t *testing.T) {
	s := storagetest.New(t)
	c := seamConfig(t, s)
	c.Allocation = features.Bitmaps
	a, err := NewAllocators(c)
	if err != nil {
		t.Fatalf("NewAllocators: %v", err)
	}
	t.Cleanup(a.Destroy)

	if _, err := a.Primary.AllocateNext(); err == nil || !strings.Contains(err.Error(), "at this time") {
		t.Fatalf("AllocateNext before the repair loop ran = %v, want upstream's not-yet error", err)
	}
	if err := a.PrimaryBitmap.CreateOrUpdate(&api.RangeAllocation{Range: "10.96.0.0/24"}); err != nil {
		t.Fatalf("the repair loop's CreateOrUpdate: %v", err)
	}
	ip, err := a.Primary.AllocateNext()
	if err != nil {
		t.Fatalf("AllocateNext: %v", err)
	}
	if !between(t, ip, "10.96.0.17", "10.96.0.254") {
		t.Errorf("AllocateNext = %s, want an address of the dynamic band", ip)
	}
	if err := a.Primary.Allocate(ip); !strings.Contains(registrytest.ErrText(err), "already allocated") {
		t.Errorf("Allocate(%s) again = %v, want upstream's ErrAllocated", ip, err)
	}
	// Another apiserver on the same etcd sees the allocation.
	other, err := NewAllocators(c)
	if err != nil {
		t.Fatalf("second NewAllocators: %v", err)
	}
	t.Cleanup(other.Destroy)
	if !other.Primary.Has(ip) {
		t.Errorf("a second apiserver does not see %s", ip)
	}
}

// TestLegacyBitmapReadersHoldTheWholeRange reads, as an IPAddress apiserver
// that does not dual-write reads them, bitmaps that upstream's bitmap-only
// apiserver wrote with the last address of each range allocated: being full up
// to the end is no bad data, and must not be logged as such (the readers once
// had a one-offset map and logged a healthy /20 as "size=1 bits=4007").
func TestLegacyBitmapReadersHoldTheWholeRange(t *testing.T) {
	logs := captureLogs(t)
	s := storagetest.New(t)
	c := seamConfig(t, s)
	c.PrimaryRange = *mustCIDR(t, "10.104.0.0/20")
	bitmaps := []struct {
		key, last string
		family    api.IPFamily
		cidr      net.IPNet
	}{
		{PrimaryBitmapKey, "10.104.15.254", api.IPv4Protocol, c.PrimaryRange},
		{SecondaryBitmapKey, "fd00::ff", api.IPv6Protocol, c.SecondaryRange},
	}
	for _, b := range bitmaps {
		upstream := newUpstreamRange(t, b.cidr.String())
		if err := upstream.Allocate(ip(t, b.last)); err != nil {
			t.Fatalf("upstream Allocate(%s): %v", b.last, err)
		}
		snapshot := &api.RangeAllocation{}
		if err := upstream.Snapshot(snapshot); err != nil {
			t.Fatalf("upstream Snapshot: %v", err)
		}
		seedBitmap(t, s, b.key, snapshot)
	}
	a, err := NewAllocators(c)
	if err != nil {
		t.Fatalf("NewAllocators: %v", err)
	}
	t.Cleanup(a.Destroy)

	for _, b := range bitmaps {
		reader := a.LegacyBitmaps[b.family]
		if reader == nil {
			t.Fatalf("no reader for the %s bitmap", b.family)
		}
		stored, err := reader.Get()
		if err != nil {
			t.Fatalf("reading %s: %v", b.key, err)
		}
		if r, err := NewFromSnapshot(stored); err != nil || !r.Has(ip(t, b.last)) {
			t.Errorf("%s as read does not hold %s (%v)", b.key, b.last, err)
		}
	}
	if got := logs.lines("Stored data marks values past the end"); len(got) > 0 {
		t.Errorf("reading bitmaps full up to their ends reported bad data: %q", got)
	}
}

// storedRange is the range stored at key, "" when nothing is.
func storedRange(t *testing.T, s storagetest.Storage, key string) string {
	t.Helper()
	e, err := allocatorstorage.New(mustMap(t, "unused"), key, s.ServiceIPs)
	if err != nil {
		t.Fatalf("storage.New: %v", err)
	}
	defer e.Destroy()
	obj, err := e.Get()
	if err != nil {
		t.Fatalf("Get %s: %v", key, err)
	}
	return obj.Range
}

// TestInFamilyOrder checks that a Service's addresses are committed and
// released in the order of its IP families, as upstream's allocator walks
// them, whatever the order of the allocators' map.
func TestInFamilyOrder(t *testing.T) {
	v4, v6 := &Range{}, &Range{}
	a := &Allocators{ByFamily: map[api.IPFamily]upstreamipallocator.Interface{api.IPv4Protocol: v4, api.IPv6Protocol: v6}}
	for _, tc := range []struct {
		name     string
		families []api.IPFamily
		want     []upstreamipallocator.Interface
	}{
		{name: "IPv4 primary", families: []api.IPFamily{api.IPv4Protocol, api.IPv6Protocol}, want: []upstreamipallocator.Interface{v4, v6}},
		{name: "IPv6 primary", families: []api.IPFamily{api.IPv6Protocol, api.IPv4Protocol}, want: []upstreamipallocator.Interface{v6, v4}},
		{name: "IPv6 only", families: []api.IPFamily{api.IPv6Protocol}, want: []upstreamipallocator.Interface{v6, v4}},
		{name: "no families yet", want: []upstreamipallocator.Interface{v4, v6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 20 { // a map's order changes from one range to the next
				got := a.inFamilyOrder(&api.Service{Spec: api.ServiceSpec{IPFamilies: tc.families}})
				if len(got) != len(tc.want) || got[0] != tc.want[0] || got[1] != tc.want[1] {
					t.Fatalf("inFamilyOrder(%v) = %v, want %v", tc.families, got, tc.want)
				}
			}
		})
	}
}
