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
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apistorage "k8s.io/apiserver/pkg/storage"
	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
	upstreamallocatorstorage "k8s.io/kubernetes/pkg/registry/core/service/allocator/storage"
)

const (
	testRange = "10.96.0.0/24"
	testSize  = 254
	testBand  = 16
)

func TestInit(t *testing.T) {
	tests := []struct {
		name string
		seed *api.RangeAllocation
		opts []Option
		// wantErr is a substring of Init's error, "" for none.
		wantErr string
		// wantStored is whether an object is stored after Init, wantHas an offset the map must hold.
		wantStored bool
		wantHas    int
	}{{
		name:    "missing, left to the repair loop",
		wantHas: -1,
	}, {
		name:       "missing, created for dual-write",
		opts:       []Option{WithCreateIfMissing()},
		wantStored: true,
		wantHas:    -1,
	}, {
		name:       "stored, loaded into the map",
		seed:       &api.RangeAllocation{Range: testRange, Data: []byte{0x01, 0x00}},
		wantStored: true,
		wantHas:    8,
	}, {
		name:       "stored with bits past the range, kept",
		seed:       &api.RangeAllocation{Range: testRange, Data: append([]byte{0x80}, make([]byte, 40)...)},
		wantStored: true,
		wantHas:    -1,
	}, {
		name:       "other range",
		seed:       &api.RangeAllocation{Range: "10.0.0.0/24"},
		wantErr:    "stored ClusterIP bitmap /ranges/serviceips holds IPv4 range 10.0.0.0/24 but --service-cluster-ip-range says IPv4 range 10.96.0.0/24: set --service-cluster-ip-range back to 10.0.0.0/24,",
		wantStored: true,
		wantHas:    -1,
	}, {
		name:       "other family",
		seed:       &api.RangeAllocation{Range: "fd00::/120"},
		wantErr:    "holds IPv6 range fd00::/120 but --service-cluster-ip-range says IPv4 range 10.96.0.0/24",
		wantStored: true,
		wantHas:    -1,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStorage(t)
			if tc.seed != nil {
				s.seed(t, tc.seed)
			}
			opts := append([]Option{WithDescription("ClusterIP bitmap", "--service-cluster-ip-range")}, tc.opts...)
			e := s.newBinding(t, testSize, testBand, testRange, opts...)

			err := e.Init(context.Background())
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Init: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Init = %v, want an error containing %q", err, tc.wantErr)
			case tc.wantErr != "":
				var rangeErr *StoredRangeError
				if !errors.As(err, &rangeErr) {
					t.Fatalf("Init = %T, want a *StoredRangeError", err)
				}
			}
			obj, err := e.Get()
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if got := obj.ResourceVersion != ""; got != tc.wantStored {
				t.Fatalf("stored after Init = %v, want %v", got, tc.wantStored)
			}
			if tc.wantHas >= 0 && !e.Has(tc.wantHas) {
				t.Errorf("Has(%d) = false after Init, want the stored allocation loaded", tc.wantHas)
			}
		})
	}
}

func TestMissingObjectRefusesAllocation(t *testing.T) {
	s := newTestStorage(t)
	e := s.newBinding(t, testSize, testBand, testRange)
	if err := e.Init(context.Background()); err != nil {
		t.Fatalf("Init: %v", err)
	}
	// Upstream's text: the Service storage shows it in its 422.
	want := "cannot allocate resources of type serviceipallocations at this time"
	if _, err := e.Allocate(1); err == nil || err.Error() != want {
		t.Errorf("Allocate with nothing stored = %v, want %q", err, want)
	}
	if _, _, err := e.AllocateNext(); err == nil || err.Error() != want {
		t.Errorf("AllocateNext with nothing stored = %v, want %q", err, want)
	}
}

func TestStoredFormatIsUpstreams(t *testing.T) {
	s := newTestStorage(t)
	e := s.newBinding(t, testSize, testBand, testRange, WithCreateIfMissing())
	if err := e.Init(context.Background()); err != nil {
		t.Fatalf("Init: %v", err)
	}
	offsets := []int{0, 7, 8, testBand, 100, testSize - 1}
	upstream := upstreamallocator.NewAllocationMapWithOffset(testSize, testRange, testBand)
	for _, o := range offsets {
		if ok, err := e.Allocate(o); !ok || err != nil {
			t.Fatalf("Allocate(%d) = %v, %v", o, ok, err)
		}
		if _, err := upstream.Allocate(o); err != nil {
			t.Fatalf("upstream Allocate(%d): %v", o, err)
		}
	}
	if ok, err := e.Allocate(7); ok || err != nil {
		t.Errorf("Allocate(7) again = %v, %v; want false, nil as upstream", ok, err)
	}
	wantRange, wantData := upstream.Snapshot()
	obj := stored(t, e)
	if obj.Range != wantRange || !bytes.Equal(obj.Data, wantData) {
		t.Errorf("stored %q %x, want upstream's %q %x", obj.Range, obj.Data, wantRange, wantData)
	}
}

func TestRestartKeepsAllocations(t *testing.T) {
	s := newTestStorage(t)
	first := s.newBinding(t, testSize, testBand, testRange, WithCreateIfMissing())
	if err := first.Init(context.Background()); err != nil {
		t.Fatalf("Init: %v", err)
	}
	var want []int
	for range 20 {
		o, ok, err := first.AllocateNext()
		if !ok || err != nil {
			t.Fatalf("AllocateNext = %d, %v, %v", o, ok, err)
		}
		want = append(want, o)
	}
	first.Destroy()

	second := s.newBinding(t, testSize, testBand, testRange)
	if err := second.Init(context.Background()); err != nil {
		t.Fatalf("Init after restart: %v", err)
	}
	for _, o := range want {
		if !second.Has(o) {
			t.Errorf("offset %d lost across a restart", o)
		}
		if ok, err := second.Allocate(o); ok || err != nil {
			t.Errorf("Allocate(%d) after restart = %v, %v; want false, nil", o, ok, err)
		}
	}
	if got, wantFree := second.Free(), testSize-len(want); got != wantFree {
		t.Errorf("Free after restart = %d, want %d", got, wantFree)
	}
}

func TestBindingsSharingAKey(t *testing.T) {
	s := newTestStorage(t)
	a := s.newBinding(t, testSize, testBand, testRange, WithCreateIfMissing())
	b := s.newBinding(t, testSize, testBand, testRange)
	for _, e := range []*Etcd{a, b} {
		if err := e.Init(context.Background()); err != nil {
			t.Fatalf("Init: %v", err)
		}
	}
	if ok, err := a.Allocate(5); !ok || err != nil {
		t.Fatalf("a.Allocate(5) = %v, %v", ok, err)
	}
	// b's map is stale: its compare-and-swap fails, it reloads and sees 5 taken.
	if ok, err := b.Allocate(5); ok || err != nil {
		t.Errorf("b.Allocate(5) after a took it = %v, %v; want false, nil", ok, err)
	}
	if !b.Has(5) {
		t.Errorf("b.Has(5) = false after b reloaded")
	}
	if err := b.Release(5); err != nil {
		t.Fatalf("b.Release(5): %v", err)
	}
	if ok, err := a.Allocate(5); !ok || err != nil {
		t.Errorf("a.Allocate(5) after b released it = %v, %v; want true, nil", ok, err)
	}
}

// allocator is what the concurrency test drives: netfork's Etcd or upstream's.
type nexter interface {
	AllocateNext() (int, bool, error)
}

func TestConcurrentAllocateNextNeverDuplicates(t *testing.T) {
	const total = 500
	tests := []struct {
		name string
		// second builds the other allocator on the key.
		second func(t *testing.T, s testStorage) nexter
	}{{
		name: "two netfork apiservers",
		second: func(t *testing.T, s testStorage) nexter {
			e := s.newBinding(t, 1024, 64, "10.96.0.0/22")
			if err := e.Init(context.Background()); err != nil {
				t.Fatalf("Init: %v", err)
			}
			return e
		},
	}, {
		name: "netfork and upstream apiservers",
		second: func(t *testing.T, s testStorage) nexter {
			m := upstreamallocator.NewAllocationMapWithOffset(1024, "10.96.0.0/22", 64)
			e, err := upstreamallocatorstorage.NewEtcd(m, testKey, s.config)
			if err != nil {
				t.Fatalf("upstream NewEtcd: %v", err)
			}
			t.Cleanup(e.Destroy)
			return e
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStorage(t)
			first := s.newBinding(t, 1024, 64, "10.96.0.0/22", WithCreateIfMissing())
			if err := first.Init(context.Background()); err != nil {
				t.Fatalf("Init: %v", err)
			}
			allocators := []nexter{first, tc.second(t, s)}

			var (
				mu   sync.Mutex
				seen = map[int]int{}
				wg   sync.WaitGroup
				errs = make(chan error, total)
			)
			for i := range total {
				wg.Go(func() {
					o, ok, err := allocators[i%2].AllocateNext()
					if err != nil || !ok {
						errs <- fmt.Errorf("allocator %d: AllocateNext = %d, %v, %v", i%2, o, ok, err)
						return
					}
					mu.Lock()
					seen[o]++
					mu.Unlock()
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			for o, n := range seen {
				if n > 1 {
					t.Errorf("offset %d handed out %d times", o, n)
				}
			}
			check := s.newBinding(t, 1024, 64, "10.96.0.0/22")
			if err := check.Init(context.Background()); err != nil {
				t.Fatalf("Init: %v", err)
			}
			if got := 1024 - check.Free(); got != len(seen) || got != total {
				t.Errorf("stored %d allocations, handed out %d distinct of %d", got, len(seen), total)
			}
		})
	}
}

func TestCreateOrUpdate(t *testing.T) {
	isRangeErr := func(err error) bool {
		var r *StoredRangeError
		return errors.As(err, &r)
	}
	tests := []struct {
		name string
		seed *api.RangeAllocation
		// snapshot is what the repair loop writes; rv is its ResourceVersion, "stored" for the stored one.
		snapshot *api.RangeAllocation
		rv       string
		wantErr  func(error) bool
		// wantData is what is stored afterwards.
		wantData []byte
	}{{
		name:     "create",
		snapshot: &api.RangeAllocation{Range: testRange, Data: []byte{0x02}},
		wantData: []byte{0x02},
	}, {
		name:     "update at the stored version",
		seed:     &api.RangeAllocation{Range: testRange, Data: []byte{0x01}},
		snapshot: &api.RangeAllocation{Range: testRange, Data: []byte{0x04}},
		rv:       "stored",
		wantData: []byte{0x04},
	}, {
		name:     "create over a stored object",
		seed:     &api.RangeAllocation{Range: testRange, Data: []byte{0x01}},
		snapshot: &api.RangeAllocation{Range: testRange, Data: []byte{0x04}},
		wantErr:  apierrors.IsConflict,
		wantData: []byte{0x01},
	}, {
		name:     "update at another version",
		seed:     &api.RangeAllocation{Range: testRange, Data: []byte{0x01}},
		snapshot: &api.RangeAllocation{Range: testRange, Data: []byte{0x04}},
		rv:       "1",
		wantErr:  apierrors.IsConflict,
		wantData: []byte{0x01},
	}, {
		name:     "another range, nothing written",
		seed:     &api.RangeAllocation{Range: testRange, Data: []byte{0x01}},
		snapshot: &api.RangeAllocation{Range: "10.0.0.0/24", Data: []byte{0x04}},
		rv:       "stored",
		wantErr:  isRangeErr,
		wantData: []byte{0x01},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStorage(t)
			if tc.seed != nil {
				s.seed(t, tc.seed)
			}
			e := s.newBinding(t, testSize, testBand, testRange)
			snapshot := tc.snapshot.DeepCopy()
			snapshot.ResourceVersion = tc.rv
			if tc.rv == "stored" {
				snapshot.ResourceVersion = stored(t, e).ResourceVersion
			}

			err := e.CreateOrUpdate(snapshot)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("CreateOrUpdate: %v", err)
			case tc.wantErr != nil && !tc.wantErr(err):
				t.Fatalf("CreateOrUpdate = %v, not the error expected", err)
			}
			if got := stored(t, e).Data; !bytes.Equal(got, tc.wantData) {
				t.Errorf("stored data %x, want %x", got, tc.wantData)
			}
			if tc.wantErr == nil {
				_, data := e.Snapshot()
				if !bytes.Equal(data, tc.wantData) {
					t.Errorf("map after CreateOrUpdate %x, want the written %x", data, tc.wantData)
				}
			}
		})
	}
}

func TestUndecodableObjectIsRemovedAndRebuilt(t *testing.T) {
	s := newTestStorage(t)
	if _, err := etcdClient(t).Put(context.Background(), s.rawKey(testKey), "\x00not a RangeAllocation"); err != nil {
		t.Fatalf("writing garbage: %v", err)
	}
	e := s.newBinding(t, testSize, testBand, testRange)
	if _, err := e.Allocate(1); err == nil {
		t.Fatalf("Allocate over an undecodable object succeeded")
	}
	if err := e.Init(context.Background()); err != nil {
		t.Fatalf("Init over an undecodable object: %v, want it logged and removed", err)
	}
	obj, err := e.Get()
	if err != nil || obj.ResourceVersion != "" {
		t.Fatalf("Get after removal = %+v, %v; want nothing stored", obj, err)
	}
	// The repair loop's pass: Get, rebuild, CreateOrUpdate.
	if err := e.CreateOrUpdate(&api.RangeAllocation{Range: testRange, Data: []byte{0x02}}); err != nil {
		t.Fatalf("CreateOrUpdate after removal: %v", err)
	}
	if !e.Has(1) {
		t.Errorf("rebuilt allocation not loaded")
	}
	if ok, err := e.Allocate(2); !ok || err != nil {
		t.Errorf("Allocate after rebuild = %v, %v", ok, err)
	}
}

func TestDecodableObjectIsNeverRemoved(t *testing.T) {
	s := newTestStorage(t)
	s.seed(t, &api.RangeAllocation{Range: testRange, Data: []byte{0x01}})
	e := s.newBinding(t, testSize, testBand, testRange)
	// As if a read had failed to decode, when the object decodes now: the store must refuse.
	readErr := apistorage.NewCorruptObjError(testKey, errors.New("object not decodable revision=1: bad bytes"))
	if e.removeIfUndecodable(context.Background(), readErr) {
		t.Fatalf("removeIfUndecodable removed a decodable object")
	}
	if got := stored(t, e).Data; !bytes.Equal(got, []byte{0x01}) {
		t.Errorf("stored data %x after the probe, want 01", got)
	}
}

func TestUndecodable(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		remove bool
	}{
		{"decode error", apistorage.NewCorruptObjError(testKey, errors.New("object not decodable revision=3: illegal base64 data")), true},
		{"transform error, say the KMS plugin is down", apistorage.NewCorruptObjError(testKey, errors.New("data from the storage is not transformable revision=0: rpc error")), false},
		{"internal error", apistorage.NewInternalError(errors.New("object not decodable")), false},
		{"network error", errors.New("context deadline exceeded"), false},
		{"none", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := apistorage.IsCorruptObject(tc.err) && undecodable(tc.err)
			if got != tc.remove {
				t.Errorf("removable(%v) = %v, want %v", tc.err, got, tc.remove)
			}
		})
	}
}
