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
	"math/rand/v2"
	"sync"

	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
)

// AllocationMap is a set of allocated offsets in [0, size) split into a static
// band [0, bandSize) and a dynamic band [bandSize, size). AllocateNext takes a
// random free offset from the dynamic band and only when that is full from the
// static band, as upstream's NewAllocationMapWithOffset does, so values set
// statically in the lower band rarely collide with dynamic ones.
type AllocationMap struct {
	// size is the number of offsets in the map.
	size int
	// bandSize is the number of offsets in the static band.
	bandSize int
	// rangeSpec names the range the offsets stand for, as RangeAllocation.Range stores it.
	rangeSpec string

	// lock guards everything below.
	lock sync.Mutex
	rand *rand.Rand
	set  bitset
	// usedStatic and usedDynamic count the offsets set in each band.
	usedStatic, usedDynamic int
	// stray keeps the bits at or past size of the last restored snapshot, so Snapshot gives them back as upstream would.
	stray []byte
}

var (
	_ upstreamallocator.Snapshottable              = (*AllocationMap)(nil)
	_ Banded                                       = (*AllocationMap)(nil)
	_ upstreamallocator.AllocatorWithOffsetFactory = NewAllocatorWithOffset
)

// NewAllocationMap returns an empty map of size offsets whose first bandSize
// offsets are the static band (0 for none); rangeSpec is what Snapshot stores
// and Restore must be given.
func NewAllocationMap(size int, rangeSpec string, bandSize int, opts ...Option) (*AllocationMap, error) {
	if size < 0 {
		return nil, fmt.Errorf("allocation map for range %q: size %d is negative", rangeSpec, size)
	}
	if bandSize < 0 || bandSize > size {
		return nil, fmt.Errorf("allocation map for range %q: static band size %d is outside [0,%d]", rangeSpec, bandSize, size)
	}
	m := &AllocationMap{
		size:      size,
		bandSize:  bandSize,
		rangeSpec: rangeSpec,
		rand:      rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		set:       newBitset(size),
	}
	for _, opt := range opts {
		opt(m)
	}
	return m, nil
}

// NewAllocatorWithOffset is NewAllocationMap as an
// upstreamallocator.AllocatorWithOffsetFactory, so the map can stand behind
// upstream's ipallocator.New and portallocator.New, which pass their band as offset.
func NewAllocatorWithOffset(size int, rangeSpec string, offset int) (upstreamallocator.Interface, error) {
	m, err := NewAllocationMap(size, rangeSpec, offset)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Size is the number of offsets in the map.
func (m *AllocationMap) Size() int {
	return m.size
}

// BandSize is the number of offsets in the static band [0, BandSize()).
func (m *AllocationMap) BandSize() int {
	return m.bandSize
}

// BandOf is the band offset belongs to; it needs no lock since bands never move.
func (m *AllocationMap) BandOf(offset int) Band {
	switch {
	case offset < 0 || offset >= m.size:
		return BandNone
	case offset < m.bandSize:
		return BandStatic
	default:
		return BandDynamic
	}
}

// Allocate reserves offset in either band. Like upstream it returns false and
// no error when offset is already allocated, and an error (wrapping
// ErrOutOfRange) when it is outside the map.
func (m *AllocationMap) Allocate(offset int) (bool, error) {
	if offset < 0 || offset >= m.size {
		return false, fmt.Errorf("offset %d is outside [0,%d) of range %q: %w", offset, m.size, m.rangeSpec, ErrOutOfRange)
	}
	m.lock.Lock()
	defer m.lock.Unlock()

	if m.set.has(offset) {
		return false, nil
	}
	m.mark(offset)
	return true, nil
}

// AllocateNext reserves a random free offset of the dynamic band, or of the
// static band when the dynamic one is full. Like upstream it returns
// (0, false, nil) when the map is full.
func (m *AllocationMap) AllocateNext() (int, bool, error) {
	m.lock.Lock()
	defer m.lock.Unlock()

	if m.usedDynamic < m.size-m.bandSize {
		if o := m.set.randomFree(m.bandSize, m.size, m.bandSize+m.rand.IntN(m.size-m.bandSize)); o >= 0 {
			m.mark(o)
			return o, true, nil
		}
	}
	if m.usedStatic < m.bandSize {
		if o := m.set.randomFree(0, m.bandSize, m.rand.IntN(m.bandSize)); o >= 0 {
			m.mark(o)
			return o, true, nil
		}
	}
	return 0, false, nil
}

// Release frees offset. Like upstream, releasing a free offset or one outside
// the map does nothing and is not an error.
func (m *AllocationMap) Release(offset int) error {
	if offset < 0 || offset >= m.size {
		return nil
	}
	m.lock.Lock()
	defer m.lock.Unlock()

	if !m.set.has(offset) {
		return nil
	}
	m.set.unset(offset)
	if offset < m.bandSize {
		m.usedStatic--
	} else {
		m.usedDynamic--
	}
	return nil
}

// mark sets a free offset and counts it in its band.
func (m *AllocationMap) mark(offset int) {
	m.set.set(offset)
	if offset < m.bandSize {
		m.usedStatic++
	} else {
		m.usedDynamic++
	}
}

// ForEach calls fn for each allocated offset, lowest first, as upstream does.
// fn runs under the map's lock and must not call back into the map.
func (m *AllocationMap) ForEach(fn func(int)) {
	m.lock.Lock()
	defer m.lock.Unlock()

	m.set.forEach(fn)
}

// Has reports whether offset is allocated, so that Allocate(offset) would return false.
func (m *AllocationMap) Has(offset int) bool {
	if offset < 0 || offset >= m.size {
		return false
	}
	m.lock.Lock()
	defer m.lock.Unlock()

	return m.set.has(offset)
}

// Free is the number of offsets left in both bands.
func (m *AllocationMap) Free() int {
	m.lock.Lock()
	defer m.lock.Unlock()

	return m.size - m.usedStatic - m.usedDynamic
}

// Used is how many offsets are allocated in the static and the dynamic band.
func (m *AllocationMap) Used() (static, dynamic int) {
	m.lock.Lock()
	defer m.lock.Unlock()

	return m.usedStatic, m.usedDynamic
}

// Snapshot is the range and the allocated set in upstream's stored form, byte
// for byte what upstream's AllocationBitmap.Snapshot gives for the same set.
func (m *AllocationMap) Snapshot() (string, []byte) {
	m.lock.Lock()
	defer m.lock.Unlock()

	return m.rangeSpec, m.set.encode(m.stray)
}

// Restore replaces the allocated set with a snapshot in upstream's stored
// form. It returns a *RangeMismatchError, and keeps the current set, when
// rangeSpec is not the map's range. Bits at or past size, which upstream
// accepts and netfork cannot allocate, are kept only to be written back by
// Snapshot: Has, ForEach, Free and Used do not see them.
func (m *AllocationMap) Restore(rangeSpec string, data []byte) error {
	if rangeSpec != m.rangeSpec {
		return &RangeMismatchError{Stored: rangeSpec, Configured: m.rangeSpec}
	}
	m.lock.Lock()
	defer m.lock.Unlock()

	m.stray = m.set.load(data)
	m.usedStatic = m.set.count(m.bandSize)
	m.usedDynamic = m.set.count(m.size) - m.usedStatic
	return nil
}

// Destroy does nothing: the map holds no goroutines or watches. It is safe to call more than once.
func (m *AllocationMap) Destroy() {}
