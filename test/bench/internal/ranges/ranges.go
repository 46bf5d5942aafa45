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

package ranges

import (
	"net/netip"
)

const (
	// ServiceCIDR is kubeadm's default Service range and the largest IPv4 range upstream
	// accepts, so the default range never fills (30k Services are 3% of it) and the legacy
	// bitmap is as large (128 KiB) as real clusters carry; single-stack keeps every
	// contender comparable.
	ServiceCIDR = "10.96.0.0/12"
	// KubernetesServiceIP is the first address of ServiceCIDR, which the kubernetes Service gets.
	KubernetesServiceIP = "10.96.0.1"
	// NodePortRange starts at upstream's default but holds 32768 ports rather than 2768:
	// half of 30k Services are 15000 NodePorts, and a range under half full keeps the run
	// about allocation rather than about searching a nearly full range. No kube-proxy
	// runs, so nothing binds these ports.
	NodePortRange = "30000-62767"
	// NodePortBase is NodePortRange's first port.
	NodePortBase = 30000
	// NodePortCapacity is how many ports NodePortRange holds.
	NodePortCapacity = 62767 - 30000 + 1
	// MaxNodePorts is as many NodePorts as a run allocates: half the range, which 2*16384
	// Services reach; a larger run (up to 100k) adds ClusterIP Services only.
	MaxNodePorts = NodePortCapacity / 2
)

const (
	// extraCIDRBase is the /12 the extra ServiceCIDRs are carved from, disjoint from ServiceCIDR.
	extraCIDRBase = "10.128.0.0"
	// ExtraCIDRBits is each extra ServiceCIDR's prefix length: 254 addresses, small as the
	// issue asks, and 1000 of them still fit in extraCIDRBase's /12.
	ExtraCIDRBits = 24
	// MaxExtraCIDRs is how many /24s fit in extraCIDRBase's /12.
	MaxExtraCIDRs = 1 << (ExtraCIDRBits - 12)
)

// ExtraCIDR is the i-th extra ServiceCIDR's range: 10.128.0.0/24, 10.128.1.0/24, ...
func ExtraCIDR(i int) netip.Prefix {
	v := IPv4Uint(netip.MustParseAddr(extraCIDRBase)) + uint32(i)<<(32-ExtraCIDRBits)
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), ExtraCIDRBits)
}

// IPv4Uint is an IPv4 address as a number, for carving ranges.
func IPv4Uint(addr netip.Addr) uint32 {
	b := addr.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
