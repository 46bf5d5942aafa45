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

package allocator

import (
	"fmt"
	"net/netip"
	"testing"

	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// TestClusterIPBandEdges checks the static band of Service CIDRs against the
// KEP-3070 worked examples, quoted next to each case, and the /28 and /124
// ranges of upstream #115316.
func TestClusterIPBandEdges(t *testing.T) {
	for _, tc := range []struct {
		cidr   string
		usable int
		band   int
		// lastStatic and firstDynamic are addresses; lastStatic is empty when there is no band.
		firstStatic, lastStatic, firstDynamic string
	}{
		{
			// KEP-3070 Example 1: "Range Size: 2^16 - 2 = 65534", "Band Offset: min(max(16,65536/16),256) = min(4096,256) = 256",
			// "Static band start: 192.168.0.1", "Static band ends: 192.168.1.0".
			cidr: "192.168.0.0/16", usable: 65534, band: 256,
			firstStatic: "192.168.0.1", lastStatic: "192.168.1.0", firstDynamic: "192.168.1.1",
		},
		{
			// KEP-3070 Example 2: "Range Size: 2^10 - 2 = 1022", "Band Offset: min(max(16,1024/16),256) = min(max(16,64),256) = 64",
			// "Static band start: 192.168.0.1", "Static band ends: 192.168.0.64".
			cidr: "192.168.0.0/22", usable: 1022, band: 64,
			firstStatic: "192.168.0.1", lastStatic: "192.168.0.64", firstDynamic: "192.168.0.65",
		},
		{
			// KEP-3070 Example 3: "Range Size: 2^6 - 2 = 62", "Band Offset: min(max(16,64/16),256) = min(max(16,4),256) = 16",
			// "Static band start: 192.168.0.1", "Static band ends: 192.168.0.16".
			cidr: "192.168.0.0/26", usable: 62, band: 16,
			firstStatic: "192.168.0.1", lastStatic: "192.168.0.16", firstDynamic: "192.168.0.17",
		},
		{
			// KEP-3070: min(max(16, 256/16), 256) = 16.
			cidr: "10.0.0.0/24", usable: 254, band: 16,
			firstStatic: "10.0.0.1", lastStatic: "10.0.0.16", firstDynamic: "10.0.0.17",
		},
		{
			// KEP-3070: "If cidrSize < $min the formula doesn't apply"; a /28 has 16 addresses but 14 usable (#115316).
			cidr: "10.0.0.0/28", usable: 14, band: 0,
			firstDynamic: "10.0.0.1",
		},
		{
			// KEP-3070: the smallest range with a band, 16 of its 30 usable addresses.
			cidr: "10.0.0.0/27", usable: 30, band: 16,
			firstStatic: "10.0.0.1", lastStatic: "10.0.0.16", firstDynamic: "10.0.0.17",
		},
		{
			// KEP-3070: min(max(16, 4096/16), 256) = 256; 4094 usable addresses would give 255.
			cidr: "10.0.0.0/20", usable: 4094, band: 256,
			firstStatic: "10.0.0.1", lastStatic: "10.0.1.0", firstDynamic: "10.0.1.1",
		},
		{
			// KEP-3070: a /124 has 16 addresses but 15 usable, no band (#115316).
			cidr: "fd00::/124", usable: 15, band: 0,
			firstDynamic: "fd00::1",
		},
		{
			// KEP-3070: min(max(16, 65536/16), 256) = 256.
			cidr: "fd00::/112", usable: 65535, band: 256,
			firstStatic: "fd00::1", lastStatic: "fd00::100", firstDynamic: "fd00::101",
		},
		{
			// KEP-3070 with the legacy bitmap's 2^16 cap: the default local-up IPv6 range.
			cidr: "fd00:10:96::/108", usable: 65535, band: 256,
			firstStatic: "fd00:10:96::1", lastStatic: "fd00:10:96::100", firstDynamic: "fd00:10:96::101",
		},
		{
			// KEP-3070: an IPv6 /64 is capped like any range past 2^16.
			cidr: "2001:db8::/64", usable: 65535, band: 256,
			firstStatic: "2001:db8::1", lastStatic: "2001:db8::100", firstDynamic: "2001:db8::101",
		},
	} {
		t.Run(tc.cidr, func(t *testing.T) {
			p := netip.MustParsePrefix(tc.cidr)
			usable, band := UsableAddresses(p), ClusterIPBandSize(p)
			if usable != tc.usable || band != tc.band {
				t.Fatalf("UsableAddresses, ClusterIPBandSize = %d, %d; want %d, %d", usable, band, tc.usable, tc.band)
			}
			if band >= usable {
				t.Fatalf("band %d leaves no dynamic value among %d usable addresses", band, usable)
			}
			if band > 0 {
				if got := nthUsable(p, 0).String(); got != tc.firstStatic {
					t.Errorf("first static address = %s, want %s", got, tc.firstStatic)
				}
				if got := nthUsable(p, band-1).String(); got != tc.lastStatic {
					t.Errorf("last static address = %s, want %s", got, tc.lastStatic)
				}
			}
			if got := nthUsable(p, band).String(); got != tc.firstDynamic {
				t.Errorf("first dynamic address = %s, want %s", got, tc.firstDynamic)
			}
		})
	}
}

// TestNodePortBandEdges checks the static band of NodePort ranges against the
// KEP-3668 worked examples, quoted next to each case. The KEP counts a range's
// size as last-first (2767 for 30000-32767) where it holds one port more, and
// names the first dynamic port as where the static band "ends"; both counts
// give the same band.
func TestNodePortBandEdges(t *testing.T) {
	for _, tc := range []struct {
		portRange string
		kepSize   int
		band      int
		// lastStatic is 0 when there is no band.
		firstStatic, lastStatic, firstDynamic int
	}{
		{
			// KEP-3668: "If node-range-size < $min the formula doesn't apply".
			portRange: "30000-30014", kepSize: 15, band: 0, firstDynamic: 30000,
		},
		{
			// KEP-3668: at 16 ports min(max(16, 16/32), 128) = 16 is the whole range; upstream (and netfork) keep no band.
			portRange: "30000-30015", kepSize: 16, band: 0, firstDynamic: 30000,
		},
		{
			// KEP-3668 Example 3: "Range Size: 32767 - 32567 = 200", "Band Offset: min(max(16,200/32),128) = min(max(16, 6),128) = 16",
			// "Static band start: 32567", "Static band ends: 32583".
			portRange: "32567-32767", kepSize: 200, band: 16, firstStatic: 32567, lastStatic: 32582, firstDynamic: 32583,
		},
		{
			// KEP-3668 Example 1: "Range Size: 32767 - 30000 = 2767", "Band Offset: min(max(16,2767/32),128) = min(86,128) = 86",
			// "Static band start: 30000", "Static band ends: 30086".
			portRange: "30000-32767", kepSize: 2767, band: 86, firstStatic: 30000, lastStatic: 30085, firstDynamic: 30086,
		},
		{
			// KEP-3668 Example 2: "Range Size: 32767 - 30000 = 12767", "Band Offset: min(max(16,12767/32),128) = min(398,128) = 128",
			// "Static band start: 20000", "Static band ends: 20128".
			portRange: "20000-32767", kepSize: 12767, band: 128, firstStatic: 20000, lastStatic: 20127, firstDynamic: 20128,
		},
	} {
		t.Run(tc.portRange, func(t *testing.T) {
			pr, err := utilnet.ParsePortRange(tc.portRange)
			if err != nil {
				t.Fatal(err)
			}
			if got := NodePortBandSize(tc.kepSize); got != tc.band {
				t.Errorf("NodePortBandSize(%d), the KEP's count = %d, want %d", tc.kepSize, got, tc.band)
			}
			band := NodePortBandSize(pr.Size)
			if band != tc.band {
				t.Fatalf("NodePortBandSize(%d) = %d, want %d", pr.Size, band, tc.band)
			}
			if band > 0 && (pr.Base != tc.firstStatic || pr.Base+band-1 != tc.lastStatic) {
				t.Errorf("static band = %d-%d, want %d-%d", pr.Base, pr.Base+band-1, tc.firstStatic, tc.lastStatic)
			}
			if pr.Base+band != tc.firstDynamic {
				t.Errorf("first dynamic port = %d, want %d", pr.Base+band, tc.firstDynamic)
			}
		})
	}
}

func TestUsableAddressesInvalidPrefix(t *testing.T) {
	for _, p := range []netip.Prefix{{}, netip.PrefixFrom(netip.MustParseAddr("10.0.0.0"), 33)} {
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			if u, b := UsableAddresses(p), ClusterIPBandSize(p); u != 0 || b != 0 {
				t.Errorf("UsableAddresses, ClusterIPBandSize = %d, %d; want 0, 0", u, b)
			}
		})
	}
}
