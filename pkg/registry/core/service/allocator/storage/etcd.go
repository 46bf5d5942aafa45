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
	"errors"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	apistorage "k8s.io/apiserver/pkg/storage"
	storeerr "k8s.io/apiserver/pkg/storage/errors"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/klog/v2"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install" // RangeAllocation must be in the scheme the storage codec decodes with
	"k8s.io/kubernetes/pkg/registry/core/rangeallocation"
	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
)

// Etcd is an allocation map kept in one RangeAllocation object in etcd. Every
// change is applied to the map and written back with a compare-and-swap on the
// object's resourceVersion, retried on conflict after restoring the map from
// the newer object, so allocators sharing the object never hand out one value twice.
//
// Changes that arrive while a write is in flight are written together by the
// next one (group commit): one compare-and-swap of the whole object stores
// them all, and each caller gets its own change's result. A Service create
// and delete storm thus costs a few writes of the object per etcd round
// trip, not one each, serialized.
type Etcd struct {
	// lock serializes writes, so the map and last move together.
	lock sync.Mutex
	// queueLock guards queue, the changes waiting for the next write, and
	// writing, set while a caller writes or is about to.
	queueLock sync.Mutex
	queue     []*change
	writing   bool
	alloc     Map
	// last is the object as this Etcd last read or wrote it, nil when the map
	// may differ from what is stored (after a failed write, or before Init).
	last *api.RangeAllocation

	storage apistorage.Interface
	key     string
	// rangeSpec is the map's range, as the stored object must name it.
	rangeSpec string
	resource  schema.GroupResource
	logger    klog.Logger
	destroy   func()

	// what and flag name the object and its range's flag in messages.
	what, flag      string
	createIfMissing bool
	// reportedRV is the resourceVersion whose bad data was last logged, so it is logged once.
	reportedRV string
}

var (
	_ upstreamallocator.Interface     = (*Etcd)(nil)
	_ rangeallocation.RangeRegistry   = (*Etcd)(nil)
	_ upstreamallocator.Snapshottable = (*Etcd)(nil)
)

// New returns an Etcd that keeps alloc at key (below config's prefix, e.g.
// /ranges/serviceips), stored the way config stores config.GroupResource.
func New(alloc Map, key string, config *storagebackend.ConfigForResource, opts ...Option) (*Etcd, error) {
	store, destroy, err := generic.NewRawStorage(config, nil, nil, key)
	if err != nil {
		return nil, fmt.Errorf("storage for %s at %s: %w", config.GroupResource.String(), key, err)
	}
	var once sync.Once
	rangeSpec, _ := alloc.Snapshot()
	e := &Etcd{
		rangeSpec: rangeSpec,
		alloc:     alloc,
		storage:   store,
		key:       key,
		resource:  config.GroupResource,
		logger:    klog.Background().WithName("rangeallocation").WithValues("key", key),
		destroy:   func() { once.Do(destroy) },
		what:      "range allocation",
		flag:      "the configured range",
	}
	for _, opt := range opts {
		opt(e)
	}
	return e, nil
}

// Allocate reserves offset in etcd. Like upstream it returns false and no
// error when offset is taken.
func (e *Etcd) Allocate(offset int) (bool, error) {
	err := e.apply(func() error {
		ok, err := e.alloc.Allocate(offset)
		if err != nil {
			return err
		}
		if !ok {
			return errUnableToAllocate
		}
		return nil
	})
	if errors.Is(err, errUnableToAllocate) {
		return false, nil
	}
	return err == nil, err
}

// AllocateNext reserves a free offset in etcd. Like upstream it returns
// (0, false, nil) when the map is full.
func (e *Etcd) AllocateNext() (int, bool, error) {
	var offset int
	err := e.apply(func() error {
		var ok bool
		var err error
		offset, ok, err = e.alloc.AllocateNext()
		if err != nil {
			return err
		}
		if !ok {
			return errUnableToAllocate
		}
		return nil
	})
	switch {
	case errors.Is(err, errUnableToAllocate):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	}
	return offset, true, nil
}

// Release frees offset in etcd.
func (e *Etcd) Release(offset int) error {
	return e.apply(func() error {
		return e.alloc.Release(offset)
	})
}

// ForEach calls fn for each offset allocated as of the last read or write.
func (e *Etcd) ForEach(fn func(int)) {
	e.lock.Lock()
	defer e.lock.Unlock()

	e.alloc.ForEach(fn)
}

// Has tells whether offset was allocated as of the last read or write.
func (e *Etcd) Has(offset int) bool {
	e.lock.Lock()
	defer e.lock.Unlock()

	return e.alloc.Has(offset)
}

// Free is the number of free offsets as of the last read or write.
func (e *Etcd) Free() int {
	e.lock.Lock()
	defer e.lock.Unlock()

	return e.alloc.Free()
}

// Snapshot is the map as of the last read or write, in upstream's stored form.
func (e *Etcd) Snapshot() (string, []byte) {
	e.lock.Lock()
	defer e.lock.Unlock()

	return e.alloc.Snapshot()
}

// Restore replaces the in-memory map only; the next change reads etcd again
// and writes over it, so use CreateOrUpdate to change what is stored.
func (e *Etcd) Restore(rangeSpec string, data []byte) error {
	e.lock.Lock()
	defer e.lock.Unlock()

	e.last = nil
	return e.alloc.Restore(rangeSpec, data)
}

// Destroy closes the storage; calling it again does nothing.
func (e *Etcd) Destroy() {
	e.destroy()
}

// change is one caller's change to the map, waiting to be written.
type change struct {
	// fn changes the map, or returns an error and leaves it as it was.
	fn func() error
	// written is set once a write stored the change or failed; err is then
	// fn's result in that write, or the write's error.
	written bool
	err     error
	// wake tells the caller its change was written, or that it is to write next.
	wake chan struct{}
}

// errNoChange aborts a write in which every change of the batch was refused.
var errNoChange = errors.New("no change to write")

// apply queues fn and returns once a write has stored it, or failed. One
// caller at a time writes: it stores every change queued by then in one
// compare-and-swap and hands the writing on to the oldest change queued
// while it wrote, so a batch never waits behind callers whose changes are
// already stored.
func (e *Etcd) apply(fn func() error) error {
	c := &change{fn: fn, wake: make(chan struct{}, 1)}
	e.queueLock.Lock()
	e.queue = append(e.queue, c)
	lead := !e.writing
	e.writing = true
	e.queueLock.Unlock()
	if !lead {
		<-c.wake
		if c.written {
			return c.err
		}
	}

	e.lock.Lock()
	e.queueLock.Lock()
	batch := e.queue
	e.queue = nil
	e.queueLock.Unlock()
	e.write(batch)
	e.lock.Unlock()

	e.queueLock.Lock()
	if len(e.queue) > 0 {
		e.queue[0].wake <- struct{}{}
	} else {
		e.writing = false
	}
	e.queueLock.Unlock()
	return c.err
}

// write stores batch in one compare-and-swap and hands each change its
// result; the caller holds e.lock.
func (e *Etcd) write(batch []*change) {
	err := e.update(func() error {
		changed := false
		for _, c := range batch {
			c.err = c.fn()
			changed = changed || c.err == nil
		}
		if !changed {
			return errNoChange
		}
		return nil
	})
	for _, c := range batch {
		if err != nil && !errors.Is(err, errNoChange) {
			c.err = err
		}
		c.written = true
		c.wake <- struct{}{}
	}
}

// update applies change to the map as of the stored object and writes the
// result back, retrying on conflict; the caller holds e.lock. When change
// fails, the map is as stored and nothing is written.
func (e *Etcd) update(change func() error) error {
	var cached runtime.Object
	if e.last != nil {
		cached = e.last.DeepCopy() // GuaranteedUpdate hands it to tryUpdate, which changes it
	}
	out := &api.RangeAllocation{}
	var changeErr error
	err := e.storage.GuaranteedUpdate(context.TODO(), e.key, out, true, nil,
		apistorage.SimpleUpdate(func(input runtime.Object) (runtime.Object, error) {
			existing := input.(*api.RangeAllocation)
			if existing.ResourceVersion == "" {
				return nil, fmt.Errorf("cannot allocate resources of type %s at this time", e.resource.String())
			}
			if e.last == nil || existing.ResourceVersion != e.last.ResourceVersion {
				// Someone else wrote, or an earlier try changed the map: start from what is stored.
				e.last = nil
				if err := e.restore(existing); err != nil {
					return nil, err
				}
			}
			// The map now differs from every stored version until the write succeeds.
			e.last = nil
			if changeErr = change(); changeErr != nil {
				return nil, changeErr
			}
			existing.Range, existing.Data = e.alloc.Snapshot()
			return existing, nil
		}),
		cached,
	)
	if err != nil {
		if changeErr != nil && errors.Is(err, changeErr) {
			// The map was restored from the stored object and not changed.
			return err
		}
		if undecodable(err) {
			e.logger.Error(err, "Stored object cannot be decoded; allocations fail until the repair loop removes and rebuilds it", "object", e.what)
		}
		return storeerr.InterpretUpdateError(err, e.resource, "")
	}
	e.last = out
	return nil
}

// restore loads a stored object into the map, with a clear error when it was
// written for another range.
func (e *Etcd) restore(stored *api.RangeAllocation) error {
	if stored.Range != e.rangeSpec {
		return e.rangeError(stored.Range)
	}
	e.reportBadData(stored)
	return e.alloc.Restore(stored.Range, stored.Data)
}

func (e *Etcd) rangeError(stored string) *StoredRangeError {
	return &StoredRangeError{Key: e.key, What: e.what, Flag: e.flag, Stored: stored, Configured: e.rangeSpec}
}
