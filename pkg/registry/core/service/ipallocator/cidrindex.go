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
	"container/heap"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"net/netip"
	"slices"

	"github.com/netfork/netfork/pkg/registry/core/service/allocator"
)

// maxPickerAddresses is the largest prefix (in usable addresses) whose free
// addresses are tracked in a bitmap (128 KiB at most). Larger prefixes are
// allocated from by random probing against the set of used addresses, which
// takes O(1) expected tries until more than half of 2^20 addresses are in use.
const maxPickerAddresses = 1 << 20

// maxProbes is how many random addresses a probed prefix tries per band before
// it is passed over for this allocation.
const maxProbes = 64

// addrKey is an address in 16-byte form: the key of the index's set, 16 bytes
// per used address instead of the 24 of a netip.Addr.
type addrKey [16]byte

func keyOf(a netip.Addr) addrKey { return a.As16() }

func (k addrKey) addr(isIPv6 bool) netip.Addr {
	a := netip.AddrFrom16(k)
	if !isIPv6 {
		return a.Unmap()
	}
	return a
}

// addrState is why an address counts as used.
type addrState uint8

const (
	// stateObject: an IPAddress object exists (seen by the IPAddress index, or created here).
	stateObject addrState = iota + 1
	// stateReserved: reserved by this apiserver for a request, the object not created yet.
	stateReserved
	// stateHeld: the object was deleted while a Service still has the address;
	// KEP-1880 keeps it out of allocation until that consumer is gone.
	stateHeld
)

// cidrSpec is one distinct prefix among the ServiceCIDRs of a family.
type cidrSpec struct {
	prefix netip.Prefix
	// ready is true when one of the ServiceCIDRs with this prefix is ready and not being deleted.
	ready bool
	// order ranks prefixes for dynamic allocation: the oldest ServiceCIDR first.
	order orderKey
}

// orderKey sorts ServiceCIDRs by creation time, then name.
type orderKey struct {
	created int64
	name    string
}

func (a orderKey) less(b orderKey) bool {
	if a.created != b.created {
		return a.created < b.created
	}
	return a.name < b.name
}

// prefixEntry is what the index knows of one prefix.
type prefixEntry struct {
	cidrSpec
	// first is the first usable address (network + 1); usable counts the
	// usable addresses from first (IPv4 loses the broadcast address too), at
	// most MaxUint64; band is the KEP-3070 static band at the start of them.
	first  netip.Addr
	usable uint64
	band   uint64
	// used is how many used addresses fall inside the prefix, network and
	// broadcast included; usedUsable leaves those two out.
	used, usedUsable uint64

	// allocatable is true for a ready prefix that no other ready prefix contains.
	allocatable bool
	// picker tracks the free addresses of an allocatable prefix of at most
	// maxPickerAddresses; nil for larger ones, which are probed.
	picker *allocator.AllocationMap
	// heapIndex is the entry's position in the open heap, -1 when not there.
	heapIndex int
	// probeFull is set when probing found nothing; cleared by a release inside.
	probeFull bool
}

// cidrIndex is the in-memory view one family's allocator keeps: the set of
// used addresses and, per distinct ServiceCIDR prefix, how many of them it
// holds. Allocation, release and the counts are O(number of distinct prefix
// lengths), never a walk over a range or over the used set; only a change to
// the set of prefixes walks the used set once. It is not safe for concurrent
// use: the allocator serializes access.
type cidrIndex struct {
	isIPv6 bool
	used   map[addrKey]addrState
	// prefixes holds every prefix named by a ServiceCIDR of the family; lengths
	// their distinct lengths, which bound a containment lookup.
	prefixes map[netip.Prefix]*prefixEntry
	lengths  []int
	// open holds the allocatable prefixes that may have a free address, oldest first.
	open openHeap
	rand *rand.Rand
}

func newCIDRIndex(isIPv6 bool, src rand.Source) *cidrIndex {
	return &cidrIndex{
		isIPv6:   isIPv6,
		used:     map[addrKey]addrState{},
		prefixes: map[netip.Prefix]*prefixEntry{},
		rand:     rand.New(src),
	}
}

// state is how a is used, 0 when free.
func (x *cidrIndex) state(a netip.Addr) addrState {
	return x.used[keyOf(a)]
}

// add marks a as used in state s; an object supersedes a reservation or a
// hold. It reports whether a was free before.
func (x *cidrIndex) add(a netip.Addr, s addrState) bool {
	k := keyOf(a)
	if old, ok := x.used[k]; ok {
		if s == stateObject && old != stateObject {
			x.used[k] = s
		}
		return false
	}
	x.used[k] = s
	x.eachContaining(a, func(p *prefixEntry) {
		p.count(a, 1)
		if p.picker != nil {
			if off, ok := p.offset(a); ok {
				_, _ = p.picker.Allocate(off)
				if p.picker.Free() == 0 {
					x.open.remove(p)
				}
			}
		}
	})
	return true
}

// remove frees a and reports whether it was used.
func (x *cidrIndex) remove(a netip.Addr) bool {
	k := keyOf(a)
	if _, ok := x.used[k]; !ok {
		return false
	}
	delete(x.used, k)
	x.eachContaining(a, func(p *prefixEntry) {
		p.count(a, -1)
		if p.picker != nil {
			if off, ok := p.offset(a); ok {
				_ = p.picker.Release(off)
			}
		}
		if p.allocatable {
			p.probeFull = false
			x.open.add(p)
		}
	})
	return true
}

// eachContaining calls fn for every prefix containing a, one map lookup per prefix length.
func (x *cidrIndex) eachContaining(a netip.Addr, fn func(*prefixEntry)) {
	for _, bits := range x.lengths {
		p, err := a.Prefix(bits)
		if err != nil {
			continue
		}
		if e := x.prefixes[p]; e != nil {
			fn(e)
		}
	}
}

// readyPrefixFor is the longest ready prefix in which a is a usable address, nil if none.
func (x *cidrIndex) readyPrefixFor(a netip.Addr) *prefixEntry {
	var found *prefixEntry
	x.eachContaining(a, func(p *prefixEntry) {
		if _, ok := p.distance(a); ok && p.ready && (found == nil || p.prefix.Bits() > found.prefix.Bits()) {
			found = p
		}
	})
	return found
}

// next reserves a free address of the oldest open prefix, in its dynamic band
// first (KEP-3070), skipping prefixes skip rejects. ok is false when every
// allocatable prefix is full.
func (x *cidrIndex) next(skip func(*prefixEntry) bool) (netip.Addr, *prefixEntry, bool) {
	var passed []*prefixEntry
	defer func() {
		for _, p := range passed {
			x.open.add(p)
		}
	}()
	for x.open.Len() > 0 {
		p := x.open.entries[0]
		if skip != nil && skip(p) {
			x.open.remove(p)
			passed = append(passed, p)
			continue
		}
		if a, ok := x.pick(p); ok {
			x.add(a, stateReserved)
			return a, p, true
		}
		x.open.remove(p)
		if p.picker == nil {
			p.probeFull = true
		}
	}
	return netip.Addr{}, nil, false
}

// pick chooses a free address of p without marking it.
func (x *cidrIndex) pick(p *prefixEntry) (netip.Addr, bool) {
	if p.picker != nil {
		off, ok, _ := p.picker.AllocateNext()
		if !ok {
			return netip.Addr{}, false
		}
		// pick only finds the offset: the caller's add marks it in the picker
		// of every prefix that contains it, this one included.
		_ = p.picker.Release(off)
		return p.at(uint64(off)), true
	}
	if p.probeFull {
		return netip.Addr{}, false
	}
	for _, band := range [][2]uint64{{p.band, p.usable}, {0, p.band}} {
		if band[1] <= band[0] {
			continue
		}
		for range maxProbes {
			a := p.at(band[0] + x.rand.Uint64N(band[1]-band[0]))
			if _, used := x.used[keyOf(a)]; !used {
				return a, true
			}
		}
	}
	return netip.Addr{}, false
}

// setCIDRs replaces the set of prefixes. Entries of prefixes that stay keep
// their counts; new ones are counted, and new pickers filled, in one walk
// over the used set. It returns the prefixes added and removed.
func (x *cidrIndex) setCIDRs(specs []cidrSpec) (added, removed []netip.Prefix) {
	next := make(map[netip.Prefix]*prefixEntry, len(specs))
	var fresh []*prefixEntry
	for _, s := range specs {
		if e := next[s.prefix]; e != nil {
			e.ready = e.ready || s.ready
			if s.order.less(e.order) {
				e.order = s.order
			}
			continue
		}
		e := x.prefixes[s.prefix]
		if e == nil {
			e = newPrefixEntry(s.prefix)
			fresh = append(fresh, e)
			added = append(added, s.prefix)
		}
		e.cidrSpec = s
		next[s.prefix] = e
	}
	for p := range x.prefixes {
		if next[p] == nil {
			removed = append(removed, p)
		}
	}
	x.prefixes = next
	x.lengths = x.lengths[:0]
	for p := range next {
		if !slices.Contains(x.lengths, p.Bits()) {
			x.lengths = append(x.lengths, p.Bits())
		}
	}
	slices.Sort(x.lengths)

	var needFill []*prefixEntry
	x.open = openHeap{}
	for _, e := range next {
		e.heapIndex = -1
		e.allocatable = e.ready && !x.coveredByReady(e.prefix)
		switch {
		case !e.allocatable:
			e.picker = nil
		case e.picker == nil && e.usable <= maxPickerAddresses:
			e.picker = newPicker(e)
			needFill = append(needFill, e)
		}
	}
	x.fill(fresh, needFill)
	for _, e := range next {
		if e.allocatable && (e.picker == nil || e.picker.Free() > 0) {
			x.open.add(e)
		}
	}
	return added, removed
}

// fill counts the used addresses of fresh prefixes and marks them in new pickers.
func (x *cidrIndex) fill(fresh, pickers []*prefixEntry) {
	if len(x.used) == 0 || (len(fresh) == 0 && len(pickers) == 0) {
		return
	}
	isFresh := make(map[*prefixEntry]bool, len(fresh))
	for _, e := range fresh {
		isFresh[e] = true
	}
	needsPicker := make(map[*prefixEntry]bool, len(pickers))
	for _, e := range pickers {
		needsPicker[e] = true
	}
	for k := range x.used {
		a := k.addr(x.isIPv6)
		x.eachContaining(a, func(e *prefixEntry) {
			if isFresh[e] {
				e.count(a, 1)
			}
			if needsPicker[e] {
				if off, ok := e.offset(a); ok {
					_, _ = e.picker.Allocate(off)
				}
			}
		})
	}
}

// coveredByReady reports whether a ready prefix other than p contains p.
func (x *cidrIndex) coveredByReady(p netip.Prefix) bool {
	for _, bits := range x.lengths {
		if bits >= p.Bits() {
			break
		}
		outer, _ := p.Addr().Prefix(bits)
		if e := x.prefixes[outer]; e != nil && e.ready {
			return true
		}
	}
	return false
}

func newPrefixEntry(p netip.Prefix) *prefixEntry {
	e := &prefixEntry{cidrSpec: cidrSpec{prefix: p}, heapIndex: -1}
	hostBits := p.Addr().BitLen() - p.Bits()
	switch {
	case hostBits >= 64:
		e.usable = math.MaxUint64
	default:
		e.usable = uint64(1)<<hostBits - 1 // no network address
		if p.Addr().Is4() && e.usable > 0 {
			e.usable-- // no broadcast address
		}
	}
	e.first = p.Addr().Next()
	e.band = uint64(allocator.ClusterIPBandSize(p))
	return e
}

func newPicker(e *prefixEntry) *allocator.AllocationMap {
	m, err := allocator.NewAllocationMap(int(e.usable), e.prefix.String(), int(e.band))
	if err != nil {
		// The sizes come from newPrefixEntry and are always valid.
		panic(err)
	}
	return m
}

// count adds delta (1 or -1) to p's counts of used addresses for a, inside p.
func (p *prefixEntry) count(a netip.Addr, delta int) {
	p.used += uint64(delta)
	if _, ok := p.distance(a); ok {
		p.usedUsable += uint64(delta)
	}
}

// offset is a's position among p's usable addresses.
func (p *prefixEntry) offset(a netip.Addr) (int, bool) {
	d, ok := p.distance(a)
	if !ok || d > math.MaxInt {
		return 0, false
	}
	return int(d), true
}

// distance is a's position among p's usable addresses, for any prefix size.
func (p *prefixEntry) distance(a netip.Addr) (uint64, bool) {
	if !p.prefix.Contains(a) || a.Less(p.first) {
		return 0, false
	}
	_, lo := split(a)
	_, flo := split(p.first)
	d := lo - flo // both in the same prefix of at least 64 bits for IPv6
	if d >= p.usable {
		return 0, false
	}
	return d, true
}

// at is the address d places after p.first.
func (p *prefixEntry) at(d uint64) netip.Addr {
	hi, lo := split(p.first)
	if p.first.Is4() {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], uint32(lo+d))
		return netip.AddrFrom4(b)
	}
	sum := lo + d
	if sum < lo {
		hi++
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], hi)
	binary.BigEndian.PutUint64(b[8:], sum)
	return netip.AddrFrom16(b)
}

// openHeap orders allocatable prefixes oldest ServiceCIDR first.
type openHeap struct{ entries []*prefixEntry }

func (h *openHeap) Len() int           { return len(h.entries) }
func (h *openHeap) Less(i, j int) bool { return h.entries[i].order.less(h.entries[j].order) }
func (h *openHeap) Swap(i, j int) {
	h.entries[i], h.entries[j] = h.entries[j], h.entries[i]
	h.entries[i].heapIndex = i
	h.entries[j].heapIndex = j
}
func (h *openHeap) Push(v any) {
	e := v.(*prefixEntry)
	e.heapIndex = len(h.entries)
	h.entries = append(h.entries, e)
}
func (h *openHeap) Pop() any {
	e := h.entries[len(h.entries)-1]
	h.entries = h.entries[:len(h.entries)-1]
	e.heapIndex = -1
	return e
}

func (h *openHeap) add(e *prefixEntry) {
	if e.heapIndex < 0 {
		heap.Push(h, e)
	}
}

func (h *openHeap) remove(e *prefixEntry) {
	if e.heapIndex >= 0 {
		heap.Remove(h, e.heapIndex)
	}
}
