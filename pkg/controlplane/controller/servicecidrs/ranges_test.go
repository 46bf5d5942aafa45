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
	"testing"
)

func r(first, last string) addrRange {
	return addrRange{first: netip.MustParseAddr(first), last: netip.MustParseAddr(last)}
}

func TestUsable(t *testing.T) {
	tests := []struct {
		prefix string
		want   addrRange
		none   bool
	}{
		{prefix: "10.0.0.0/24", want: r("10.0.0.1", "10.0.0.254")},
		{prefix: "10.0.0.0/30", want: r("10.0.0.1", "10.0.0.2")},
		{prefix: "10.0.0.0/31", none: true},
		{prefix: "10.0.0.7/32", none: true},
		{prefix: "10.96.0.0/12", want: r("10.96.0.1", "10.111.255.254")},
		{prefix: "0.0.0.0/0", want: r("0.0.0.1", "255.255.255.254")},
		{prefix: "fd00:10:96::/108", want: r("fd00:10:96::1", "fd00:10:96::f:ffff")},
		{prefix: "fd00::/64", want: r("fd00::1", "fd00::ffff:ffff:ffff:ffff")},
		{prefix: "fd00::/127", want: r("fd00::1", "fd00::1")},
		{prefix: "fd00::5/128", none: true},
		{prefix: "::/0", want: r("::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")},
	}
	for _, tc := range tests {
		t.Run(tc.prefix, func(t *testing.T) {
			got, ok := usable(netip.MustParsePrefix(tc.prefix))
			if ok == tc.none || (ok && got != tc.want) {
				t.Errorf("usable(%s) = %v, %v; want %v, %v", tc.prefix, got, ok, tc.want, !tc.none)
			}
		})
	}
}

func TestUncovered(t *testing.T) {
	tests := []struct {
		name   string
		target addrRange
		covers []addrRange
		want   []addrRange
	}{
		{name: "nothing covers",
			target: r("10.0.0.1", "10.0.0.254"),
			want:   []addrRange{r("10.0.0.1", "10.0.0.254")}},
		{name: "a larger range covers all",
			target: r("10.0.0.1", "10.0.0.254"),
			covers: []addrRange{r("10.0.0.1", "10.0.1.254")},
			want:   nil},
		{name: "an equal range covers all",
			target: r("10.0.0.1", "10.0.0.254"),
			covers: []addrRange{r("10.0.0.1", "10.0.0.254")},
			want:   nil},
		{name: "a larger range starting below leaves the network address's neighbor covered",
			target: r("10.0.1.1", "10.0.1.254"),
			covers: []addrRange{r("10.0.0.1", "10.0.1.254")},
			want:   nil},
		{name: "smaller ranges inside leave their edges and the rest",
			target: r("10.0.0.1", "10.0.0.254"),
			covers: []addrRange{r("10.0.0.129", "10.0.0.190"), r("10.0.0.1", "10.0.0.62")},
			want:   []addrRange{r("10.0.0.63", "10.0.0.128"), r("10.0.0.191", "10.0.0.254")}},
		{name: "overlapping covers merge",
			target: r("10.0.0.1", "10.0.0.254"),
			covers: []addrRange{r("10.0.0.1", "10.0.0.100"), r("10.0.0.50", "10.0.0.200")},
			want:   []addrRange{r("10.0.0.201", "10.0.0.254")}},
		{name: "another family and disjoint ranges do not count",
			target: r("10.0.0.1", "10.0.0.254"),
			covers: []addrRange{r("fd00::1", "fd00::ffff"), r("10.0.1.1", "10.0.1.254")},
			want:   []addrRange{r("10.0.0.1", "10.0.0.254")}},
		{name: "a cover up to the last address of the space",
			target: r("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff00", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
			covers: []addrRange{r("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff80", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")},
			want:   []addrRange{r("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff00", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff7f")}},
		{name: "a /64 around a /108",
			target: r("fd00::1", "fd00::ffff:ffff:ffff:ffff"),
			covers: []addrRange{r("fd00::1", "fd00::f:ffff")},
			want:   []addrRange{r("fd00::10:0", "fd00::ffff:ffff:ffff:ffff")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := uncovered(tc.target, tc.covers); !slices.Equal(got, tc.want) {
				t.Errorf("uncovered(%v, %v) = %v, want %v", tc.target, tc.covers, got, tc.want)
			}
		})
	}
}

func TestAddressSetFirstIn(t *testing.T) {
	s := newAddressSet()
	for _, a := range []string{"10.0.0.5", "10.0.0.200", "10.0.1.7", "fd00::5", "fd00::1:0"} {
		s.insert(netip.MustParseAddr(a))
	}
	s.insert(netip.MustParseAddr("10.0.0.5")) // twice is once
	s.delete(netip.MustParseAddr("10.0.1.7"))
	if got := s.len(); got != 4 {
		t.Errorf("len() = %d, want 4", got)
	}
	tests := []struct {
		in   addrRange
		want string // "" for none
	}{
		{in: r("10.0.0.1", "10.0.0.254"), want: "10.0.0.5"},
		{in: r("10.0.0.6", "10.0.0.254"), want: "10.0.0.200"},
		{in: r("10.0.0.201", "10.0.255.254")}, // 10.0.1.7 was deleted
		{in: r("10.0.0.5", "10.0.0.5"), want: "10.0.0.5"},
		{in: r("0.0.0.1", "255.255.255.254"), want: "10.0.0.5"},
		{in: r("fd00::6", "fd00::ffff"), want: ""},
		{in: r("fd00::6", "fd00::ffff:ffff:ffff:ffff"), want: "fd00::1:0"},
	}
	for _, tc := range tests {
		got, ok := s.firstIn(tc.in)
		if (tc.want == "") == ok || (ok && got.String() != tc.want) {
			t.Errorf("firstIn(%v) = %v, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}
