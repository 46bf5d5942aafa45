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

package clustercheck

import (
	"context"
	"fmt"
	"math/big"
	"math/bits"
	"net/netip"
	"strconv"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

const (
	// DefaultEtcdPrefix is kube-apiserver's default --etcd-prefix.
	DefaultEtcdPrefix = "/registry"
	// ClusterIPBitmapKey is where upstream (and netfork) keep the primary range's
	// ClusterIP bitmap, below the etcd prefix.
	ClusterIPBitmapKey = "/ranges/serviceips"
	// SecondaryClusterIPBitmapKey holds the secondary (other family) range's bitmap.
	SecondaryClusterIPBitmapKey = "/ranges/secondaryserviceips"
	// NodePortBitmapKey holds the NodePort bitmap.
	NodePortBitmapKey = "/ranges/servicenodeports"
	// maxIPv6BitmapSize caps an IPv6 range's bitmap at its first 2^16 addresses
	// (upstream's limit, which netfork keeps); an IPv4 range's covers it whole.
	maxIPv6BitmapSize = 1 << 16
)

// BitmapReader reads a legacy bitmap (a RangeAllocation) by its key below the etcd
// prefix; nil when the key holds nothing.
type BitmapReader interface {
	ReadBitmap(ctx context.Context, key string) (*corev1.RangeAllocation, error)
}

// EtcdBitmaps reads the bitmaps straight from etcd, since no API serves them.
type EtcdBitmaps struct {
	Client *clientv3.Client
	// Prefix is the apiservers' --etcd-prefix; empty means DefaultEtcdPrefix.
	Prefix string
	// Revision, when set, reads every key at that etcd revision.
	Revision int64
}

// ReadBitmap implements BitmapReader.
func (b EtcdBitmaps) ReadBitmap(ctx context.Context, key string) (*corev1.RangeAllocation, error) {
	full := b.prefix() + key
	var opts []clientv3.OpOption
	if b.Revision != 0 {
		opts = append(opts, clientv3.WithRev(b.Revision))
	}
	resp, err := b.Client.Get(ctx, full, opts...)
	if err != nil {
		return nil, fmt.Errorf("reading %s from etcd: %w", full, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, nil
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(resp.Kvs[0].Value, nil, &corev1.RangeAllocation{})
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", full, err)
	}
	ra, ok := obj.(*corev1.RangeAllocation)
	if !ok {
		return nil, fmt.Errorf("%s holds a %T, not a RangeAllocation", full, obj)
	}
	return ra, nil
}

// prefix is the effective etcd prefix.
func (b EtcdBitmaps) prefix() string {
	if b.Prefix == "" {
		return DefaultEtcdPrefix
	}
	return strings.TrimSuffix(b.Prefix, "/")
}

// CheckClusterIPBitmap checks a ClusterIP bitmap marks exactly the ClusterIPs it can
// hold: those in its range whose offset fits the bitmap. Bit i stands for the address
// network+1+i (upstream's layout); key names the bitmap in problems.
func CheckClusterIPBitmap(p *Problems, key string, ra *corev1.RangeAllocation, clusterIPs map[string]string) {
	if ra == nil {
		p.Addf("no ClusterIP bitmap at %s", key)
		return
	}
	held := heldInBitmap(p, key, ra, clusterIPs)
	if held == nil {
		return
	}
	// The count comes first, so it survives MaxProblems when many addresses are unmarked.
	if n := popcount(ra.Data); n != len(held) {
		p.Addf("ClusterIP bitmap %s marks %d addresses, Services hold %d in %s", key, n, len(held), ra.Range)
	}
	checkMarked(p, key, ra, held)
}

// CheckClusterIPBitmapMarks checks every ClusterIP the bitmap can hold is marked, the
// property that keeps a bitmap allocator from handing it out again, and returns how many
// marks no Service holds: leaks, which a bitmap-only apiserver's repair loop releases
// only after seeing them in several of its runs (upstream's rule), so they are no error.
func CheckClusterIPBitmapMarks(p *Problems, key string, ra *corev1.RangeAllocation, clusterIPs map[string]string) (leaked int) {
	if ra == nil {
		p.Addf("no ClusterIP bitmap at %s", key)
		return 0
	}
	held := heldInBitmap(p, key, ra, clusterIPs)
	if held == nil {
		return 0
	}
	marked := checkMarked(p, key, ra, held)
	return popcount(ra.Data) - marked
}

// heldInBitmap maps each ClusterIP the bitmap can hold to its offset and holder; nil
// when the bitmap's range does not parse (a problem then).
func heldInBitmap(p *Problems, key string, ra *corev1.RangeAllocation, clusterIPs map[string]string) map[string]heldIP {
	prefix, err := netip.ParsePrefix(ra.Range)
	if err != nil {
		p.Addf("ClusterIP bitmap %s: range %q is not a CIDR", key, ra.Range)
		return nil
	}
	first := addrInt(prefix.Masked().Addr())
	first.Add(first, big.NewInt(1))
	capacity := bitmapCapacity(prefix)
	held := map[string]heldIP{}
	for ip, holder := range clusterIPs {
		addr, err := netip.ParseAddr(ip)
		if err != nil || !prefix.Contains(addr) {
			continue
		}
		off := new(big.Int).Sub(addrInt(addr), first)
		if off.Sign() < 0 || !off.IsInt64() || off.Int64() >= capacity {
			continue // The network address, or past what the bitmap holds.
		}
		held[ip] = heldIP{holder: holder, offset: int(off.Int64())}
	}
	return held
}

// bitmapCapacity is how many addresses, from network+1 on, upstream's bitmap for
// prefix holds: an IPv4 range's all but its network and broadcast addresses, an IPv6
// range's first 2^16 but the network address.
func bitmapCapacity(prefix netip.Prefix) int64 {
	hostBits := prefix.Addr().BitLen() - prefix.Bits()
	if prefix.Addr().Is4() {
		return int64(1)<<hostBits - 2
	}
	if hostBits >= 16 {
		return maxIPv6BitmapSize - 1
	}
	return int64(1)<<hostBits - 1
}

// heldIP is a ClusterIP a bitmap can hold: its Service and its bit.
type heldIP struct {
	holder string
	offset int
}

// checkMarked reports every held ClusterIP whose bit is clear and returns how many are set.
func checkMarked(p *Problems, key string, ra *corev1.RangeAllocation, held map[string]heldIP) (marked int) {
	marks := new(big.Int).SetBytes(ra.Data)
	for ip, h := range held {
		if marks.Bit(h.offset) == 0 {
			p.Addf("ClusterIP %s of Service %s is not marked in bitmap %s", ip, h.holder, key)
			continue
		}
		marked++
	}
	return marked
}

// CheckNodePortBitmap checks the NodePort bitmap marks exactly the NodePorts Services
// hold; bit i stands for port base+i.
func CheckNodePortBitmap(p *Problems, ra *corev1.RangeAllocation, nodePorts map[string]string) {
	if ra == nil {
		p.Addf("no NodePort bitmap at %s", NodePortBitmapKey)
		return
	}
	first, last, err := ParsePortRange(ra.Range)
	if err != nil {
		p.Addf("NodePort bitmap: %v", err)
		return
	}
	held := map[int]string{}
	for key, holder := range nodePorts {
		if port, err := strconv.Atoi(key); err == nil && port >= first && port <= last {
			held[port] = holder
		}
	}
	if n := popcount(ra.Data); n != len(held) {
		p.Addf("NodePort bitmap marks %d ports, Services hold %d in %s", n, len(held), ra.Range)
	}
	marks := new(big.Int).SetBytes(ra.Data)
	for port, holder := range held {
		if marks.Bit(port-first) == 0 {
			p.Addf("NodePort %d of Service %s is not marked in the bitmap", port, holder)
		}
	}
}

// ParsePortRange reads a "first-last" port range.
func ParsePortRange(s string) (first, last int, err error) {
	a, b, ok := strings.Cut(s, "-")
	if ok {
		first, err = strconv.Atoi(a)
	}
	if ok && err == nil {
		last, err = strconv.Atoi(b)
	}
	if !ok || err != nil || first > last {
		return 0, 0, fmt.Errorf("range %q is not first-last", s)
	}
	return first, last, nil
}

// addrInt is an address as a number, for offsets into a bitmap.
func addrInt(addr netip.Addr) *big.Int {
	b := addr.AsSlice()
	return new(big.Int).SetBytes(b)
}

// popcount counts the marks in a bitmap.
func popcount(data []byte) int {
	n := 0
	for _, b := range data {
		n += bits.OnesCount8(b)
	}
	return n
}
