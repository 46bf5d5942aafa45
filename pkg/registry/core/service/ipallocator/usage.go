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
	"net/netip"

	api "k8s.io/kubernetes/pkg/apis/core"
)

// Usage is how full one ServiceCIDR prefix is, as the allocator's index counts it.
type Usage struct {
	// Used counts the used addresses inside the prefix (IPAddress objects,
	// reservations in flight, held addresses), whichever ServiceCIDR they
	// were allocated through: an address inside two overlapping prefixes
	// counts in both.
	Used uint64
	// Usable counts the addresses of the prefix that can be allocated at all:
	// both KEP-3070 bands, without the network and IPv4 broadcast addresses;
	// Free those of them not used.
	Usable, Free uint64
}

// UsageReader reads prefix usage from memory, without a request to etcd.
type UsageReader interface {
	// Usage is prefix's usage; ok is false when it is not known here: the
	// prefix is of a family this apiserver does not allocate, is not (yet)
	// a ServiceCIDR's, or the allocator has not synced.
	Usage(prefix netip.Prefix) (u Usage, ok bool)
}

var (
	_ UsageReader = (*CIDRAllocator)(nil)
	_ UsageReader = (*Allocators)(nil)
)

// Usage is prefix's usage in the index, in O(1).
func (a *CIDRAllocator) Usage(prefix netip.Prefix) (Usage, bool) {
	if !a.synced() || !a.ofFamily(prefix.Addr()) {
		return Usage{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refreshLocked()
	e := a.idx.prefixes[prefix.Masked()]
	if e == nil {
		return Usage{}, false
	}
	return e.usage(), true
}

// usage is e's counts: a used network or broadcast address is used but was never free.
func (e *prefixEntry) usage() Usage {
	return Usage{Used: e.used, Usable: e.usable, Free: e.usable - min(e.usedUsable, e.usable)}
}

// Usage is prefix's usage from the allocator of its family; ok is false
// without one, or when that allocator is a bitmap (MultiCIDRServiceAllocator off).
func (a *Allocators) Usage(prefix netip.Prefix) (Usage, bool) {
	family := api.IPv4Protocol
	if prefix.Addr().Is6() {
		family = api.IPv6Protocol
	}
	r, ok := a.ByFamily[family].(UsageReader)
	if !ok {
		return Usage{}, false
	}
	return r.Usage(prefix)
}
