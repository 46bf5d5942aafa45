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
	"sync"

	"k8s.io/client-go/tools/cache"
)

// Source is what a controller follows: a shared informer, or the apiserver's
// IPAddress index.
type Source interface {
	AddEventHandler(cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error)
	RemoveEventHandler(cache.ResourceEventHandlerRegistration) error
}

// Set is the handlers one controller registered.
type Set struct {
	sources       []Source
	registrations []cache.ResourceEventHandlerRegistration
}

// Add registers h on src. On an error it removes the handlers added before,
// so a controller that fails to build leaves none behind.
func (s *Set) Add(src Source, h cache.ResourceEventHandler) error {
	reg, err := src.AddEventHandler(h)
	if err != nil {
		s.Remove()
		return err
	}
	s.sources = append(s.sources, src)
	s.registrations = append(s.registrations, reg)
	return nil
}

// HasSynced tells whether every handler has been handed what its source held
// when it was added.
func (s *Set) HasSynced() bool {
	for _, r := range s.registrations {
		if !r.HasSynced() {
			return false
		}
	}
	return true
}

// Remove takes every handler off its source.
func (s *Set) Remove() {
	for i, r := range s.registrations {
		_ = s.sources[i].RemoveEventHandler(r)
	}
	s.sources, s.registrations = nil, nil
}

// Run waits until the handlers have synced, runs each loop in a goroutine of
// its own until ctx ends, then calls shutDown (the controller's queue's),
// waits for the loops and removes the handlers.
func (s *Set) Run(ctx context.Context, shutDown func(), loops ...func(context.Context)) {
	var wg sync.WaitGroup
	defer func() {
		shutDown()
		wg.Wait()
		s.Remove()
	}()
	if !cache.WaitForNamedCacheSyncWithContext(ctx, s.HasSynced) {
		return
	}
	for _, loop := range loops {
		wg.Go(func() { loop(ctx) })
	}
	<-ctx.Done()
}
