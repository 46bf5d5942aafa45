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
	"slices"
)

// addrRange is the inclusive range of addresses [first, last], of one family.
type addrRange struct {
	first, last netip.Addr
}

func (r addrRange) contains(a netip.Addr) bool {
	return !a.Less(r.first) && !r.last.Less(a)
}

func (r addrRange) overlaps(o addrRange) bool {
	return r.first.Is4() == o.first.Is4() && !o.last.Less(r.first) && !r.last.Less(o.first)
}

// usable returns the addresses of prefix that a ServiceCIDR covers, the ones
// upstream's servicecidr.PrefixContainsIP counts as inside it: all but the
// network address and, for IPv4, the broadcast address. ok is false when none
// is left (/31 and /32, /128).
func usable(prefix netip.Prefix) (r addrRange, ok bool) {
	prefix = prefix.Masked()
	first := prefix.Addr().Next()
	last := lastAddr(prefix)
	if last.Is4() {
		last = last.Prev()
	}
	if !first.IsValid() || !last.IsValid() || last.Less(first) {
		return addrRange{}, false
	}
	return addrRange{first: first, last: last}, true
}

// lastAddr is the highest address of prefix: every host bit set.
func lastAddr(prefix netip.Prefix) netip.Addr {
	b := prefix.Addr().AsSlice()
	bits := prefix.Bits()
	for i := range b {
		switch hostBits := (i+1)*8 - bits; {
		case hostBits >= 8:
			b[i] = 0xff
		case hostBits > 0:
			b[i] |= 0xff >> (8 - hostBits)
		}
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// uncovered returns, in order, the parts of target that no range of covers
// holds. covers may be of any family and overlap target partly or not at all.
func uncovered(target addrRange, covers []addrRange) []addrRange {
	var relevant []addrRange
	for _, c := range covers {
		if c.overlaps(target) {
			relevant = append(relevant, c)
		}
	}
	slices.SortFunc(relevant, func(a, b addrRange) int { return a.first.Compare(b.first) })

	var gaps []addrRange
	next := target.first // lowest address not yet known to be covered
	for _, c := range relevant {
		if next.Less(c.first) {
			gaps = append(gaps, addrRange{first: next, last: minAddr(c.first.Prev(), target.last)})
		}
		if !c.last.Less(next) {
			next = c.last.Next()
			if !next.IsValid() || target.last.Less(next) {
				return gaps // covered up to the end of target (or of the address space)
			}
		}
	}
	return append(gaps, addrRange{first: next, last: target.last})
}

func minAddr(a, b netip.Addr) netip.Addr {
	if a.Less(b) {
		return a
	}
	return b
}
