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

package servicecidrs

import (
	"net/netip"
	"sync"

	"k8s.io/utils/third_party/forked/golang/btree"
)

// btreeDegree keeps nodes around a cache line's worth of comparisons.
const btreeDegree = 32

// addressSet is the addresses of every IPAddress object in order, so that
// "is any address in this range" costs O(log n) instead of a walk over all of
// them. It is fed by the events of the apiserver's IPAddress index.
type addressSet struct {
	mu   sync.RWMutex
	tree *btree.BTree[netip.Addr]
}

func newAddressSet() *addressSet {
	return &addressSet{tree: btree.New(btreeDegree, func(a, b netip.Addr) bool { return a.Less(b) })}
}

func (s *addressSet) insert(a netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tree.ReplaceOrInsert(a)
}

func (s *addressSet) delete(a netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tree.Delete(a)
}

func (s *addressSet) len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tree.Len()
}

// firstIn returns the lowest address of the set within r.
func (s *addressSet) firstIn(r addrRange) (netip.Addr, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var found netip.Addr
	s.tree.AscendGreaterOrEqual(r.first, func(a netip.Addr) bool {
		if r.contains(a) {
			found = a
		}
		return false
	})
	return found, found.IsValid()
}
