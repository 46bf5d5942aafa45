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

package renumber

import (
	"fmt"
	"math/big"
	"net/netip"
	"strings"
)

// Ranges is one prefix per IP family, the primary first, as a ServiceCIDR or
// --service-cluster-ip-range holds them.
type Ranges []netip.Prefix

// ParseRanges reads a comma-separated list of at most one CIDR per family.
func ParseRanges(s string) (Ranges, error) {
	var r Ranges
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR", part)
		}
		if p != p.Masked() {
			return nil, fmt.Errorf("%q has host bits set (the network is %s)", part, p.Masked())
		}
		r = append(r, p)
	}
	switch {
	case len(r) == 0:
		return nil, fmt.Errorf("no CIDR given")
	case len(r) > 2 || (len(r) == 2 && r[0].Addr().Is4() == r[1].Addr().Is4()):
		return nil, fmt.Errorf("%q: at most one CIDR per IP family", s)
	}
	return r, nil
}

// Strings is r in the form ServiceCIDRs and flags use.
func (r Ranges) Strings() []string {
	out := make([]string, len(r))
	for i, p := range r {
		out[i] = p.String()
	}
	return out
}

func (r Ranges) String() string { return strings.Join(r.Strings(), ",") }

// family is r's prefix of addr's family.
func (r Ranges) family(is4 bool) (netip.Prefix, bool) {
	for _, p := range r {
		if p.Addr().Is4() == is4 {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

// Contains tells whether addr is in one of r's prefixes.
func (r Ranges) Contains(addr netip.Addr) bool {
	p, ok := r.family(addr.Is4())
	return ok && p.Contains(addr)
}

// sameFamilies tells whether r and o hold the same IP families.
func (r Ranges) sameFamilies(o Ranges) bool {
	if len(r) != len(o) {
		return false
	}
	for _, p := range r {
		if _, ok := o.family(p.Addr().Is4()); !ok {
			return false
		}
	}
	return true
}

// usable is how many ClusterIPs p can hand out: not its network address, nor
// an IPv4 broadcast address.
func usable(p netip.Prefix) *big.Int {
	n := new(big.Int).Lsh(big.NewInt(1), uint(p.Addr().BitLen()-p.Bits()))
	n.Sub(n, big.NewInt(1))
	if p.Addr().Is4() && n.Sign() > 0 {
		n.Sub(n, big.NewInt(1))
	}
	if n.Sign() < 0 {
		n.SetInt64(0)
	}
	return n
}

// offset is addr's distance from p's network address.
func offset(p netip.Prefix, addr netip.Addr) *big.Int {
	a := new(big.Int).SetBytes(addr.AsSlice())
	return a.Sub(a, new(big.Int).SetBytes(p.Masked().Addr().AsSlice()))
}

// atOffset is the usable address of p at off from its network address.
func atOffset(p netip.Prefix, off *big.Int) (netip.Addr, bool) {
	if off.Sign() <= 0 || off.Cmp(usable(p)) > 0 {
		return netip.Addr{}, false
	}
	n := new(big.Int).Add(new(big.Int).SetBytes(p.Masked().Addr().AsSlice()), off)
	buf := make([]byte, p.Addr().BitLen()/8)
	n.FillBytes(buf)
	addr, _ := netip.AddrFromSlice(buf)
	return addr, true
}

// overlaps tells whether a and b share an address.
func overlaps(a, b netip.Prefix) bool {
	return a.Addr().Is4() == b.Addr().Is4() && a.Overlaps(b)
}
