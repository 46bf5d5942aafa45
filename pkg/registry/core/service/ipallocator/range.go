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
	"fmt"
	"net"
	"net/netip"

	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/pkg/registry/core/service/allocator"
	"github.com/netfork/netfork/pkg/registry/core/service/internal/metricsutil"
)

// Range is the legacy bitmap ClusterIP allocator over one CIDR: offset i of its
// allocation map is the address network+1+i, so the map holds every address
// but the network address and, for IPv4, the broadcast address, and for IPv6
// at most the first 2^16 addresses of the CIDR, exactly as upstream's Range
// lays out its bitmap. The map's first ClusterIPBandSize offsets are the
// KEP-3070 static band.
type Range struct {
	// cidr is the range as configured; rangeSpec is its String, which the snapshot stores and metrics label.
	cidr      net.IPNet
	rangeSpec string
	// first is the address at offset 0, size the number of offsets.
	first netip.Addr
	size  int
	// band is the number of offsets in the static band.
	band   int
	family api.IPFamily

	alloc upstreamallocator.Interface
	// metrics is nil until EnableMetrics.
	metrics *metricsutil.Recorder
}

var (
	_ upstreamipallocator.Interface = (*Range)(nil)
	_ upstreamipallocator.Interface = dryRunRange{}
)

// New returns a Range over cidr whose allocation map factory builds, given the
// number of offsets, the range as stored and the static band size; factory is
// upstream's type so the repair loops and the seams can pass etcd-backed maps.
func New(cidr *net.IPNet, factory upstreamallocator.AllocatorWithOffsetFactory) (*Range, error) {
	if cidr == nil {
		return nil, fmt.Errorf("ClusterIP range: no CIDR given")
	}
	prefix, err := toPrefix(cidr)
	if err != nil {
		return nil, err
	}
	r := &Range{
		cidr:      *cidr,
		rangeSpec: cidr.String(),
		first:     prefix.Masked().Addr().Next(),
		size:      allocator.UsableAddresses(prefix),
		band:      allocator.ClusterIPBandSize(prefix),
		family:    api.IPv4Protocol,
	}
	if prefix.Addr().Is6() {
		r.family = api.IPv6Protocol
	}
	if r.alloc, err = factory(r.size, r.rangeSpec, r.band); err != nil {
		return nil, err // the factory names the key and range
	}
	return r, nil
}

// NewInMemory returns a Range over cidr backed by netfork's in-memory allocation map.
func NewInMemory(cidr *net.IPNet) (*Range, error) {
	return New(cidr, allocator.NewAllocatorWithOffset)
}

// NewFromSnapshot returns an in-memory Range over snap's range holding snap's allocations.
func NewFromSnapshot(snap *api.RangeAllocation) (*Range, error) {
	_, cidr, err := netutils.ParseCIDRSloppy(snap.Range)
	if err != nil {
		return nil, fmt.Errorf("ClusterIP snapshot range %q: %w", snap.Range, err)
	}
	r, err := NewInMemory(cidr)
	if err != nil {
		return nil, err
	}
	if err := r.Restore(cidr, snap.Data); err != nil {
		return nil, err
	}
	return r, nil
}

// toPrefix is cidr as a netip.Prefix, IPv4 CIDRs in their 4-byte form.
func toPrefix(cidr *net.IPNet) (netip.Prefix, error) {
	addr, ok := netip.AddrFromSlice(cidr.IP)
	ones, bits := cidr.Mask.Size()
	if !ok || bits == 0 {
		return netip.Prefix{}, fmt.Errorf("ClusterIP range %s: not a valid CIDR", cidr.String())
	}
	addr = addr.Unmap()
	if addr.BitLen() != bits {
		return netip.Prefix{}, fmt.Errorf("ClusterIP range %s: address and mask are of different families", cidr.String())
	}
	return netip.PrefixFrom(addr, ones), nil
}

// Allocate reserves ip, which may be in either band. It returns an
// *ErrNotInRange for an address this range cannot hold and ErrAllocated for
// one in use, as upstream does, since the Service storage shows their text.
func (r *Range) Allocate(ip net.IP) error {
	start := r.metrics.Start()
	offset := r.offset(ip)
	if offset < 0 {
		r.metrics.Failed(metricsutil.Static)
		return &ErrNotInRange{IP: ip, ValidRange: r.rangeSpec}
	}
	ok, err := r.alloc.Allocate(offset)
	switch {
	case err != nil:
		r.metrics.Failed(metricsutil.Static)
		return err
	case !ok:
		r.metrics.Failed(metricsutil.Static)
		return ErrAllocated
	}
	r.metrics.Succeeded(metricsutil.Static, start)
	return nil
}

// AllocateNext reserves a free address, from the dynamic band while it has
// one. It returns ErrFull when the range is full.
func (r *Range) AllocateNext() (net.IP, error) {
	start := r.metrics.Start()
	offset, ok, err := r.alloc.AllocateNext()
	switch {
	case err != nil:
		r.metrics.Failed(metricsutil.Dynamic)
		return nil, err
	case !ok:
		r.metrics.Failed(metricsutil.Dynamic)
		return nil, ErrFull
	}
	r.metrics.Succeeded(metricsutil.Dynamic, start)
	return addrAt(r.first, offset), nil
}

// Release frees ip. Like upstream, releasing a free address or one the range
// cannot hold does nothing and is not an error.
func (r *Range) Release(ip net.IP) error {
	offset := r.offset(ip)
	if offset < 0 {
		return nil
	}
	if err := r.alloc.Release(offset); err != nil {
		return err
	}
	r.metrics.SetCounts()
	return nil
}

// ForEach calls fn for each allocated address, lowest first.
func (r *Range) ForEach(fn func(net.IP)) {
	r.alloc.ForEach(func(offset int) {
		fn(addrAt(r.first, offset))
	})
}

// Has tells whether ip is allocated, so that Allocate(ip) would return ErrAllocated.
func (r *Range) Has(ip net.IP) bool {
	offset := r.offset(ip)
	return offset >= 0 && r.alloc.Has(offset)
}

// CIDR is the range as configured.
func (r *Range) CIDR() net.IPNet {
	return r.cidr
}

// IPFamily is the family of the range.
func (r *Range) IPFamily() api.IPFamily {
	return r.family
}

// Free is the number of addresses left.
func (r *Range) Free() int {
	return r.alloc.Free()
}

// Used is the number of addresses allocated.
func (r *Range) Used() int {
	return r.size - r.alloc.Free()
}

// Snapshot stores the range and its allocations in dst in upstream's format.
func (r *Range) Snapshot(dst *api.RangeAllocation) error {
	snap, ok := r.alloc.(upstreamallocator.Snapshottable)
	if !ok {
		return fmt.Errorf("ClusterIP range %s: allocation map %T cannot be snapshotted", r.rangeSpec, r.alloc)
	}
	dst.Range, dst.Data = snap.Snapshot()
	return nil
}

// Restore replaces the allocations with data, a snapshot of cidr in
// upstream's format; cidr must be the range's own (ErrMismatchedNetwork).
func (r *Range) Restore(cidr *net.IPNet, data []byte) error {
	if !cidr.IP.Equal(r.cidr.IP) || cidr.Mask.String() != r.cidr.Mask.String() {
		return fmt.Errorf("restoring a snapshot of %s into ClusterIP range %s: %w", cidr.String(), r.rangeSpec, ErrMismatchedNetwork)
	}
	snap, ok := r.alloc.(upstreamallocator.Snapshottable)
	if !ok {
		return fmt.Errorf("ClusterIP range %s: allocation map %T cannot be restored", r.rangeSpec, r.alloc)
	}
	if err := snap.Restore(cidr.String(), data); err != nil {
		return fmt.Errorf("restoring ClusterIP range %s: %w", r.rangeSpec, err)
	}
	r.metrics.SetCounts()
	return nil
}

// Destroy releases what the allocation map holds.
func (r *Range) Destroy() {
	r.alloc.Destroy()
}

// EnableMetrics makes the range record upstream's ClusterIP allocator metrics,
// labeled with its CIDR. Call it before the range is shared.
func (r *Range) EnableMetrics() {
	r.metrics = newMetricsRecorder(r.rangeSpec, r.Used, r.Free)
	r.metrics.SetCounts()
}

// DryRun is a view of the range that checks requests and changes nothing.
func (r *Range) DryRun() upstreamipallocator.Interface {
	return dryRunRange{real: r}
}

// offset is ip's offset in the allocation map, -1 when the range cannot hold ip.
func (r *Range) offset(ip net.IP) int {
	return offsetOf(r.first, r.size, ip)
}
