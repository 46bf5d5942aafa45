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

package controller

import (
	"slices"
	"sync"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// Event reasons and actions on IPAddresses are upstream's.
const (
	reasonIPAddressNotAllocated   = "IPAddressNotAllocated"
	reasonIPAddressWrongReference = "IPAddressWrongReference"

	actionIPAddressAllocation = "IPAddressAllocation"
)

// orphans remembers when each IPAddress was first seen with no Service using
// it, so one is deleted only after it has been seen orphaned for the whole
// grace period, not merely because it is old.
type orphans struct {
	mu   sync.Mutex
	seen map[string]orphanSeen
}

// orphanSeen is when the IPAddress with uid was first seen orphaned.
type orphanSeen struct {
	uid   types.UID
	since time.Time
}

// observe records that a is orphaned at now and returns when it was first
// seen so; an IPAddress recreated under the same name starts again.
func (o *orphans) observe(a *networkingv1.IPAddress, now time.Time) time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	if s, ok := o.seen[a.Name]; ok && s.uid == a.UID {
		return s.since
	}
	o.seen[a.Name] = orphanSeen{uid: a.UID, since: now}
	return now
}

func (o *orphans) forget(name string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.seen, name)
}

func (o *orphans) len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.seen)
}

// keySet is a set of Service keys safe for concurrent use.
type keySet struct {
	mu   sync.Mutex
	keys map[string]struct{}
}

func (s *keySet) add(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[key] = struct{}{}
}

func (s *keySet) remove(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.keys, key)
}

// list is the keys, sorted.
func (s *keySet) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.keys))
	for k := range s.keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// isPermanent reports whether err is an answer a retry of the same request
// gets again, so it must not hold up the first pass.
func isPermanent(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) || apierrors.IsMethodNotSupported(err) ||
		apierrors.IsNotAcceptable(err) || apierrors.IsUnsupportedMediaType(err) || apierrors.IsRequestEntityTooLargeError(err)
}
