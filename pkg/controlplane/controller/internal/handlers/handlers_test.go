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

package handlers

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"
)

// source counts the handlers registered on it; failing refuses every Add.
type source struct {
	added   atomic.Int32
	failing bool
}

// registration is synced at once; Set uses nothing else of it.
type registration struct {
	cache.ResourceEventHandlerRegistration
}

func (registration) HasSynced() bool { return true }

func (s *source) AddEventHandler(cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	if s.failing {
		return nil, errors.New("refused")
	}
	s.added.Add(1)
	return registration{}, nil
}

func (s *source) RemoveEventHandler(cache.ResourceEventHandlerRegistration) error {
	s.added.Add(-1)
	return nil
}

func TestAddRemovesWhatCameBeforeAnError(t *testing.T) {
	var set Set
	ok, bad := &source{}, &source{failing: true}
	if err := set.Add(ok, cache.ResourceEventHandlerFuncs{}); err != nil {
		t.Fatal(err)
	}
	if err := set.Add(bad, cache.ResourceEventHandlerFuncs{}); err == nil {
		t.Fatal("Add on a failing source: no error")
	}
	if n := ok.added.Load(); n != 0 {
		t.Errorf("%d handlers left on the first source after the second failed", n)
	}
}

// TestRun checks the loops run once synced, and that when ctx ends the
// queue is shut down before the loops are waited for and the handlers removed.
func TestRun(t *testing.T) {
	var set Set
	src := &source{}
	if err := set.Add(src, cache.ResourceEventHandlerFuncs{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	started, shutDown := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		set.Run(ctx, func() { close(shutDown) }, func(context.Context) {
			close(started)
			<-shutDown // a worker returns once its queue is shut down
		})
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop did not start")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after ctx ended")
	}
	if n := src.added.Load(); n != 0 {
		t.Errorf("%d handlers left after Run returned", n)
	}
}
