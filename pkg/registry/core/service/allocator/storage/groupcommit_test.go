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
	"sync"
	"testing"
	"time"

	"github.com/netfork/netfork/pkg/registry/core/service/allocator"
)

// storedVersion is how many times the object at testKey was written since it was created.
func (s testStorage) storedVersion(t *testing.T) int64 {
	t.Helper()
	resp, err := etcdClient(t).Get(context.Background(), s.rawKey(testKey))
	if err != nil {
		t.Fatalf("reading %s: %v", testKey, err)
	}
	if len(resp.Kvs) != 1 {
		t.Fatalf("%s is not stored", testKey)
	}
	return resp.Kvs[0].Version
}

// waitQueued waits until n changes wait for e's next write.
func waitQueued(t *testing.T, e *Etcd, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		e.queueLock.Lock()
		queued := len(e.queue)
		e.queueLock.Unlock()
		if queued == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d changes queued after 10s, want %d", queued, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestQueuedChangesShareOneWrite(t *testing.T) {
	s := newTestStorage(t)
	e := s.newBinding(t, testSize, testBand, testRange, WithCreateIfMissing())
	if err := e.Init(context.Background()); err != nil {
		t.Fatalf("Init: %v", err)
	}
	for _, o := range []int{5, 6} {
		if ok, err := e.Allocate(o); !ok || err != nil {
			t.Fatalf("Allocate(%d) = %v, %v", o, ok, err)
		}
	}
	before := s.storedVersion(t)

	// Hold the write lock as a write in flight would: every change below queues behind it.
	e.lock.Lock()
	const nexts = 20
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		offsets = map[int]bool{}
		errs    = make(chan error, nexts+3)
	)
	for range nexts {
		wg.Go(func() {
			o, ok, err := e.AllocateNext()
			if !ok || err != nil {
				errs <- errors.New("AllocateNext in a batch failed")
				return
			}
			mu.Lock()
			offsets[o] = true
			mu.Unlock()
		})
	}
	var takenOK, outsideOK bool
	var takenErr, outsideErr, releaseErr error
	wg.Go(func() { takenOK, takenErr = e.Allocate(5) })
	wg.Go(func() { outsideOK, outsideErr = e.Allocate(testSize + 10) })
	wg.Go(func() { releaseErr = e.Release(6) })
	waitQueued(t, e, nexts+3)
	e.lock.Unlock()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	if got := s.storedVersion(t) - before; got != 1 {
		t.Errorf("%d queued changes took %d writes, want 1", nexts+3, got)
	}
	if len(offsets) != nexts || offsets[5] {
		t.Errorf("AllocateNext handed out %d distinct offsets (5 among them: %v), want %d others", len(offsets), offsets[5], nexts)
	}
	if takenOK || takenErr != nil {
		t.Errorf("Allocate of the taken offset 5 in a batch = %v, %v; want false, nil", takenOK, takenErr)
	}
	if outsideOK || !errors.Is(outsideErr, allocator.ErrOutOfRange) {
		t.Errorf("Allocate outside the range in a batch = %v, %v; want false and ErrOutOfRange", outsideOK, outsideErr)
	}
	if releaseErr != nil {
		t.Errorf("Release(6) in a batch: %v", releaseErr)
	}

	check := s.newBinding(t, testSize, testBand, testRange)
	if err := check.Init(context.Background()); err != nil {
		t.Fatalf("Init: %v", err)
	}
	if got, want := testSize-check.Free(), nexts+1; got != want {
		t.Errorf("stored %d allocations, want %d (the batch's and offset 5)", got, want)
	}
	if check.Has(6) || !check.Has(5) {
		t.Errorf("stored: offset 5 allocated = %v (want true), offset 6 = %v (want false)", check.Has(5), check.Has(6))
	}
	for o := range offsets {
		if !check.Has(o) {
			t.Errorf("offset %d handed out by the batch is not stored", o)
		}
	}
}

func TestRefusedBatchWritesNothing(t *testing.T) {
	s := newTestStorage(t)
	e := s.newBinding(t, testSize, testBand, testRange, WithCreateIfMissing())
	if err := e.Init(context.Background()); err != nil {
		t.Fatalf("Init: %v", err)
	}
	if ok, err := e.Allocate(5); !ok || err != nil {
		t.Fatalf("Allocate(5) = %v, %v", ok, err)
	}
	before := s.storedVersion(t)

	e.lock.Lock()
	var wg sync.WaitGroup
	results := make([]bool, 3)
	errs := make([]error, 3)
	for i := range results {
		wg.Go(func() { results[i], errs[i] = e.Allocate(5) })
	}
	waitQueued(t, e, len(results))
	e.lock.Unlock()
	wg.Wait()

	for i := range results {
		if results[i] || errs[i] != nil {
			t.Errorf("Allocate(5) #%d of a refused batch = %v, %v; want false, nil", i, results[i], errs[i])
		}
	}
	if got := s.storedVersion(t) - before; got != 0 {
		t.Errorf("a batch every change of which was refused wrote %d times, want 0", got)
	}
	// The map is still the stored one: the next change writes on top of it.
	if o, ok, err := e.AllocateNext(); !ok || err != nil || o == 5 {
		t.Fatalf("AllocateNext after a refused batch = %d, %v, %v", o, ok, err)
	}
}
