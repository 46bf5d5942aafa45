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
	"net"
	"net/netip"

	netutils "k8s.io/utils/net"
)

// Band is one of the two parts KEP-3070 and KEP-3668 divide a range into.
type Band uint8

const (
	// BandNone is the band of an offset outside the map.
	BandNone Band = iota
	// BandStatic is the lower band, [0, bandSize): AllocateNext takes from it only once the dynamic band is full.
	BandStatic
	// BandDynamic is the upper band, [bandSize, size): AllocateNext takes from it first.
	BandDynamic
)

// String gives the band as netfork's metrics label it.
func (b Band) String() string {
	switch b {
	case BandStatic:
		return "static"
	case BandDynamic:
		return "dynamic"
	default:
		return "none"
	}
}

// KEP-3070 and KEP-3668 parameters of min(max($min, size/$step), $max).
const (
	clusterIPBandMin  = 16
	clusterIPBandMax  = 256
	clusterIPBandStep = 16

	nodePortBandMin  = 16
	nodePortBandMax  = 128
	nodePortBandStep = 32

	// legacyIPv6BitmapLimit is where upstream's ipallocator.New caps an IPv6 range, since its bitmap has a bit per address.
	legacyIPv6BitmapLimit = 1 << 16
)

// UsableAddresses is the number of offsets upstream's legacy ClusterIP bitmap
// (ipallocator.New) keeps for cidr, so a netfork bitmap over the same range
// has the same size: the range size less the network address, less the
// broadcast address for IPv4, with IPv6 ranges capped at 2^16 addresses first.
// Like upstream (netutils.RangeSize) it is 0 for a /0 or /1 and for an invalid prefix.
func UsableAddresses(cidr netip.Prefix) int {
	size, ok := rangeSize(cidr)
	if !ok {
		return 0
	}
	if cidr.Addr().Is4() {
		size-- // broadcast
	} else {
		size = min(size, legacyIPv6BitmapLimit)
	}
	size-- // network
	return int(max(size, 0))
}

// ClusterIPBandSize is the KEP-3070 static band of cidr,
// min(max(16, cidrSize/16), 256), and 0 when fewer than 16 addresses are usable.
// It takes the prefix rather than a count because the KEP divides the CIDR size
// (its /22 example gives 1024/16 = 64, where 1022 usable addresses would give
// 63) while the no-band rule must look at the usable addresses: upstream #115316
// used the size there and built a 16-value band over the 14 (/28) or 15 (/124)
// usable addresses, and panicked.
func ClusterIPBandSize(cidr netip.Prefix) int {
	if UsableAddresses(cidr) < clusterIPBandMin {
		return 0
	}
	size, _ := rangeSize(cidr)
	return int(min(max(clusterIPBandMin, size/clusterIPBandStep), clusterIPBandMax))
}

// NodePortBandSize is the KEP-3668 static band of a NodePort range of size
// ports, min(max(16, size/32), 128), and 0 for 16 ports or fewer: the KEP
// drops the band below 16 ports, and at exactly 16 its formula would make the
// whole range static, which upstream's portallocator also turns into no band.
func NodePortBandSize(size int) int {
	if size <= nodePortBandMin {
		return 0
	}
	return min(max(nodePortBandMin, size/nodePortBandStep), nodePortBandMax)
}

// rangeSize is the number of addresses in cidr as upstream's netutils.RangeSize
// counts them (MaxInt64 when they do not fit), so both sides agree on the odd cases.
func rangeSize(cidr netip.Prefix) (int64, bool) {
	if !cidr.IsValid() {
		return 0, false
	}
	addr := cidr.Addr()
	ipnet := &net.IPNet{IP: addr.AsSlice(), Mask: net.CIDRMask(cidr.Bits(), addr.BitLen())}
	return netutils.RangeSize(ipnet), true
}
