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

package portallocator

import (
	"fmt"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/klog/v2"
	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
	upstreamportallocator "k8s.io/kubernetes/pkg/registry/core/service/portallocator"

	"github.com/netfork/netfork/pkg/registry/core/service/allocator"
	"github.com/netfork/netfork/pkg/registry/core/service/internal/metricsutil"
)

// PortAllocator allocates NodePorts from one port range: offset i of its
// allocation map is port Base+i, and the map's first NodePortBandSize offsets
// are the KEP-3668 static band.
type PortAllocator struct {
	portRange utilnet.PortRange
	// rangeSpec is portRange.String(), which the snapshot stores.
	rangeSpec string

	alloc upstreamallocator.Interface
	// metrics is nil until EnableMetrics.
	metrics *metricsutil.Recorder
}

var _ upstreamportallocator.Interface = (*PortAllocator)(nil)

// New returns a PortAllocator over pr whose allocation map factory builds,
// given the number of ports, the range as stored and the static band size.
func New(pr utilnet.PortRange, factory upstreamallocator.AllocatorWithOffsetFactory) (*PortAllocator, error) {
	if pr.Size < 0 || pr.Base < 0 {
		return nil, fmt.Errorf("NodePort range %s: base and size must not be negative", pr.String())
	}
	a := &PortAllocator{portRange: pr, rangeSpec: pr.String()}
	var err error
	if a.alloc, err = factory(pr.Size, a.rangeSpec, allocator.NodePortBandSize(pr.Size)); err != nil {
		return nil, err // the factory names the key and range
	}
	return a, nil
}

// NewInMemory returns a PortAllocator over pr backed by netfork's in-memory allocation map.
func NewInMemory(pr utilnet.PortRange) (*PortAllocator, error) {
	return New(pr, allocator.NewAllocatorWithOffset)
}

// NewFromSnapshot returns an in-memory PortAllocator over snap's range holding snap's allocations.
func NewFromSnapshot(snap *api.RangeAllocation) (*PortAllocator, error) {
	pr, err := utilnet.ParsePortRange(snap.Range)
	if err != nil {
		return nil, fmt.Errorf("NodePort snapshot range %q: %w", snap.Range, err)
	}
	a, err := NewInMemory(*pr)
	if err != nil {
		return nil, err
	}
	if err := a.Restore(*pr, snap.Data); err != nil {
		return nil, err
	}
	return a, nil
}

// Allocate reserves port, which may be in either band. It returns an
// *ErrNotInRange for a port outside the range and ErrAllocated for one in
// use, as upstream does, since the Service storage shows their text.
func (a *PortAllocator) Allocate(port int) error {
	start := a.metrics.Start()
	offset, ok := a.offset(port)
	if !ok {
		a.metrics.Failed(metricsutil.Static)
		return &ErrNotInRange{ValidPorts: a.rangeSpec}
	}
	allocated, err := a.alloc.Allocate(offset)
	switch {
	case err != nil:
		a.metrics.Failed(metricsutil.Static)
		return err
	case !allocated:
		a.metrics.Failed(metricsutil.Static)
		return ErrAllocated
	}
	a.metrics.Succeeded(metricsutil.Static, start)
	return nil
}

// AllocateNext reserves a free port, from the dynamic band while it has one.
// It returns ErrFull when the range is full.
func (a *PortAllocator) AllocateNext() (int, error) {
	start := a.metrics.Start()
	offset, ok, err := a.alloc.AllocateNext()
	switch {
	case err != nil:
		a.metrics.Failed(metricsutil.Dynamic)
		return 0, err
	case !ok:
		a.metrics.Failed(metricsutil.Dynamic)
		return 0, ErrFull
	}
	a.metrics.Succeeded(metricsutil.Dynamic, start)
	return a.portRange.Base + offset, nil
}

// Release frees port. Like upstream, releasing a free port or one outside the
// range does nothing and is not an error.
func (a *PortAllocator) Release(port int) error {
	offset, ok := a.offset(port)
	if !ok {
		klog.Background().Info("Not releasing a NodePort outside the range", "port", port, "range", a.rangeSpec)
		return nil
	}
	if err := a.alloc.Release(offset); err != nil {
		return err
	}
	a.metrics.SetCounts()
	return nil
}

// ForEach calls fn for each allocated port, lowest first.
func (a *PortAllocator) ForEach(fn func(int)) {
	a.alloc.ForEach(func(offset int) {
		fn(a.portRange.Base + offset)
	})
}

// Has tells whether port is allocated, so that Allocate(port) would return ErrAllocated.
func (a *PortAllocator) Has(port int) bool {
	offset, ok := a.offset(port)
	return ok && a.alloc.Has(offset)
}

// Free is the number of ports left.
func (a *PortAllocator) Free() int {
	return a.alloc.Free()
}

// Used is the number of ports allocated.
func (a *PortAllocator) Used() int {
	return a.portRange.Size - a.alloc.Free()
}

// Snapshot stores the range and its allocations in dst in upstream's format.
func (a *PortAllocator) Snapshot(dst *api.RangeAllocation) error {
	snap, ok := a.alloc.(upstreamallocator.Snapshottable)
	if !ok {
		return fmt.Errorf("NodePort range %s: allocation map %T cannot be snapshotted", a.rangeSpec, a.alloc)
	}
	dst.Range, dst.Data = snap.Snapshot()
	return nil
}

// Restore replaces the allocations with data, a snapshot of pr in upstream's
// format; pr must be the allocator's own range (ErrMismatchedNetwork).
func (a *PortAllocator) Restore(pr utilnet.PortRange, data []byte) error {
	if pr.String() != a.rangeSpec {
		return fmt.Errorf("restoring a snapshot of %s into NodePort range %s: %w", pr.String(), a.rangeSpec, ErrMismatchedNetwork)
	}
	snap, ok := a.alloc.(upstreamallocator.Snapshottable)
	if !ok {
		return fmt.Errorf("NodePort range %s: allocation map %T cannot be restored", a.rangeSpec, a.alloc)
	}
	if err := snap.Restore(a.rangeSpec, data); err != nil {
		return fmt.Errorf("restoring NodePort range %s: %w", a.rangeSpec, err)
	}
	a.metrics.SetCounts()
	return nil
}

// Destroy releases what the allocation map holds.
func (a *PortAllocator) Destroy() {
	a.alloc.Destroy()
}

// EnableMetrics makes the allocator record upstream's NodePort allocator
// metrics. Call it before the allocator is shared.
func (a *PortAllocator) EnableMetrics() {
	a.metrics = newMetricsRecorder(a.Used, a.Free)
	a.metrics.SetCounts()
}

// offset is port's offset in the allocation map, and whether the range holds port.
func (a *PortAllocator) offset(port int) (int, bool) {
	if !a.portRange.Contains(port) {
		return 0, false
	}
	return port - a.portRange.Base, true
}
