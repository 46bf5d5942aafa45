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
	"encoding/binary"
	"net"
	"net/netip"
)

// This file maps addresses to bitmap offsets with fixed-width arithmetic on
// netip.Addr instead of upstream's big.Int, which allocates on every call and,
// by casting the difference to int64, maps an address 2^64 past the base of a
// large IPv6 range back into it (upstream #138374, #134193).

// offsetOf is ip's offset from first when it is one of the size addresses
// [first, first+size), else -1. An IPv4 address in 16-byte form counts as IPv4.
func offsetOf(first netip.Addr, size int, ip net.IP) int {
	addr, ok := netip.AddrFromSlice(ip)
	if !ok || size <= 0 {
		return -1
	}
	addr = addr.Unmap()
	if addr.Is4() != first.Is4() {
		return -1
	}
	hi, lo := split(addr)
	fhi, flo := split(first)
	dlo := lo - flo
	borrow := uint64(0)
	if lo < flo {
		borrow = 1
	}
	if hi-fhi-borrow != 0 || dlo >= uint64(size) {
		return -1
	}
	return int(dlo)
}

// addrAt is the address offset places after first, in the 16-byte form
// upstream's ipallocator returns for both families.
func addrAt(first netip.Addr, offset int) net.IP {
	hi, lo := split(first)
	sum := lo + uint64(offset)
	if sum < lo {
		hi++
	}
	ip := make(net.IP, net.IPv6len)
	if first.Is4() {
		copy(ip, v4InV6Prefix)
		binary.BigEndian.PutUint32(ip[12:], uint32(sum))
		return ip
	}
	binary.BigEndian.PutUint64(ip[:8], hi)
	binary.BigEndian.PutUint64(ip[8:], sum)
	return ip
}

// v4InV6Prefix is the first 12 bytes of an IPv4 address in 16-byte form.
var v4InV6Prefix = []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}

// split is addr as a 128-bit number, IPv4 addresses as their 32-bit value.
func split(addr netip.Addr) (hi, lo uint64) {
	if addr.Is4() {
		b := addr.As4()
		return 0, uint64(binary.BigEndian.Uint32(b[:]))
	}
	b := addr.As16()
	return binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
}
