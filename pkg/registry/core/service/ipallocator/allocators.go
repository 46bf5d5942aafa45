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
	"context"
	"fmt"
	"net"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/rangeallocation"
	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"

	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/pkg/registry/core/service/allocator"
	allocatorstorage "github.com/netfork/netfork/pkg/registry/core/service/allocator/storage"
	"github.com/netfork/netfork/pkg/registry/internal/jointwrite"
)

// Allocators are the ClusterIP allocators of one apiserver, one per configured family.
type Allocators struct {
	// Primary allocates for the family of the first --service-cluster-ip-range.
	Primary upstreamipallocator.Interface
	// ByFamily holds Primary and, when dual-stack, the secondary family's allocator.
	ByFamily map[api.IPFamily]upstreamipallocator.Interface

	// PrimaryBitmap and SecondaryBitmap are the legacy bitmaps in etcd, nil where none is kept.
	PrimaryBitmap   rangeallocation.RangeRegistry
	SecondaryBitmap rangeallocation.RangeRegistry

	// LegacyBitmaps, when ClusterIPs are IPAddresses not mirrored in the
	// bitmaps, read the bitmaps other apiservers may still write, by family.
	LegacyBitmaps map[api.IPFamily]rangeallocation.RangeRegistry
	destroy       []func()
}

// NewAllocators builds the ClusterIP allocators for c, honoring the
// MultiCIDRServiceAllocator and DisableAllocatorDualWrite gates.
func NewAllocators(c Config) (*Allocators, error) {
	if c.PrimaryRange.IP == nil {
		return nil, fmt.Errorf("service clusterIPRange is missing")
	}
	a := &Allocators{ByFamily: map[api.IPFamily]upstreamipallocator.Interface{}}

	primary, bitmap, err := c.newFamilyAllocator(c.PrimaryRange, PrimaryBitmapKey)
	if err != nil {
		return nil, fmt.Errorf("cannot create cluster IP allocator for %s: %w", c.PrimaryRange.String(), err)
	}
	a.Primary, a.PrimaryBitmap = primary, bitmap
	a.ByFamily[primary.IPFamily()] = primary

	if c.SecondaryRange.IP != nil {
		secondary, bitmap, err := c.newFamilyAllocator(c.SecondaryRange, SecondaryBitmapKey)
		if err != nil {
			a.Destroy()
			return nil, fmt.Errorf("cannot create cluster IP allocator for %s: %w", c.SecondaryRange.String(), err)
		}
		a.SecondaryBitmap = bitmap
		a.ByFamily[secondary.IPFamily()] = secondary
	}
	if c.Allocation == features.IPAddresses {
		if err := a.readLegacyBitmaps(c); err != nil {
			a.Destroy()
			return nil, err
		}
	}
	for _, alloc := range a.ByFamily {
		alloc.EnableMetrics()
	}
	return a, nil
}

// readLegacyBitmaps opens the legacy bitmaps of both families for reading.
func (a *Allocators) readLegacyBitmaps(c Config) error {
	a.LegacyBitmaps = map[api.IPFamily]rangeallocation.RangeRegistry{}
	for _, b := range []struct {
		cidr net.IPNet
		key  string
	}{{c.PrimaryRange, PrimaryBitmapKey}, {c.SecondaryRange, SecondaryBitmapKey}} {
		if b.cidr.IP == nil {
			continue
		}
		reader, err := c.legacyBitmapReader(b.cidr, b.key)
		if err != nil {
			return err
		}
		a.destroy = append(a.destroy, reader.Destroy)
		family := api.IPv4Protocol
		if b.cidr.IP.To4() == nil {
			family = api.IPv6Protocol
		}
		a.LegacyBitmaps[family] = reader
	}
	return nil
}

// legacyBitmapReader opens the bitmap at key for reading only. Its map is laid
// out over cidr as a bitmap-only apiserver lays out the one it writes, since
// the storage logs stored bits past the map's size as bad data: a smaller map
// would log every healthy bitmap with a high address allocated.
func (c Config) legacyBitmapReader(cidr net.IPNet, key string) (*allocatorstorage.Etcd, error) {
	var reader *allocatorstorage.Etcd
	_, err := New(&cidr, func(size int, rangeSpec string, band int) (upstreamallocator.Interface, error) {
		m, err := allocator.NewAllocationMap(size, rangeSpec, band)
		if err != nil {
			return nil, err
		}
		reader, err = allocatorstorage.New(m, key, c.StorageConfig, allocatorstorage.WithDescription("ClusterIP bitmap", bitmapFlag(key)))
		return reader, err
	})
	return reader, err
}

// Destroy releases what the allocators hold (watches, goroutines).
func (a *Allocators) Destroy() {
	for _, alloc := range a.ByFamily {
		alloc.Destroy()
	}
	for _, destroy := range a.destroy {
		destroy()
	}
}

// newFamilyAllocator returns the allocator for one family and the bitmap registry behind it, if any.
func (c Config) newFamilyAllocator(cidr net.IPNet, bitmapKey string) (upstreamipallocator.Interface, rangeallocation.RangeRegistry, error) {
	if c.Allocation == features.Bitmaps {
		var registry rangeallocation.RangeRegistry
		alloc, err := New(&cidr, c.bitmapFactory(bitmapKey, &registry, false))
		if err != nil {
			return nil, nil, err
		}
		return alloc, registry, nil
	}

	var (
		bitmap   *Range
		registry rangeallocation.RangeRegistry
	)
	if c.Allocation == features.IPAddressesDualWrite {
		r, err := New(&cidr, c.bitmapFactory(bitmapKey, &registry, true))
		if err != nil {
			return nil, nil, err
		}
		bitmap = r
	}
	if c.IPAddresses == nil {
		return nil, nil, fmt.Errorf("the ClusterIP allocator for %s has no IPAddress index", cidr.String())
	}
	alloc, err := NewCIDRAllocator(CIDRConfig{
		FlagCIDR:     cidr,
		Writer:       c.ipAddressWriter(),
		ServiceCIDRs: c.Informers.Networking().V1().ServiceCIDRs(),
		IPAddresses:  c.IPAddresses,
		Services:     c.Informers.Core().V1().Services().Informer(),
		Bitmap:       bitmap,
	})
	if err != nil {
		if bitmap != nil {
			bitmap.Destroy()
		}
		return nil, nil, err
	}
	return alloc, registry, nil
}

// CommitService creates the IPAddresses of the addresses in ips that the
// allocators reserved for svc (see CIDRAllocator.Commit); it does nothing in
// bitmap mode, where allocating is storing.
func (a *Allocators) CommitService(ctx context.Context, svc *api.Service, ips []string) error {
	for _, alloc := range a.inFamilyOrder(svc) {
		if c, ok := alloc.(*CIDRAllocator); ok {
			if err := c.Commit(ctx, svc, ips); err != nil {
				return err
			}
		}
	}
	return nil
}

// PrepareRelease prepares the delete of one IPAddress of the Service obj,
// about to be deleted, for the Service storage of slot (see
// CIDRAllocator.PrepareRelease): the first family's it can. The transaction
// takes one, and preparing a delete admits it, so preparing the others too
// would admit them again when they are released.
func (a *Allocators) PrepareRelease(ctx context.Context, slot *jointwrite.Slot, obj runtime.Object) []*jointwrite.Delete {
	svc, ok := obj.(*api.Service)
	if !ok {
		return nil
	}
	for _, alloc := range a.inFamilyOrder(svc) {
		if c, ok := alloc.(*CIDRAllocator); ok {
			if deletes := c.PrepareRelease(ctx, slot, svc); len(deletes) > 0 {
				return deletes
			}
		}
	}
	return nil
}

// bitmapFactory keeps a bitmap at key in etcd and records its registry in
// *registry. With initialize set, a bitmap missing from etcd is created at
// once, since a dual-write target with no stored object refuses every
// allocation and no bitmap repair loop runs to create it.
func (c Config) bitmapFactory(key string, registry *rangeallocation.RangeRegistry, initialize bool) upstreamallocator.AllocatorWithOffsetFactory {
	return func(size int, rangeSpec string, band int) (upstreamallocator.Interface, error) {
		m, err := allocator.NewAllocationMap(size, rangeSpec, band)
		if err != nil {
			return nil, err
		}
		opts := []allocatorstorage.Option{allocatorstorage.WithDescription("ClusterIP bitmap", bitmapFlag(key))}
		if initialize {
			opts = append(opts, allocatorstorage.WithCreateIfMissing())
		}
		etcd, err := allocatorstorage.New(m, key, c.StorageConfig, opts...)
		if err != nil {
			return nil, err
		}
		if err := etcd.Init(context.TODO()); err != nil {
			etcd.Destroy()
			return nil, err
		}
		*registry = etcd
		return etcd, nil
	}
}

// bitmapFlag names the flag value the bitmap at key is configured from, for start-up errors.
func bitmapFlag(key string) string {
	if key == SecondaryBitmapKey {
		return "the secondary range of --service-cluster-ip-range"
	}
	return "--service-cluster-ip-range"
}

// ipAddressWriter is c.IPAddressWriter, or c.Client's IPAddresses when none is set.
func (c Config) ipAddressWriter() IPAddressWriter {
	if c.IPAddressWriter != nil {
		return c.IPAddressWriter
	}
	return c.Client.NetworkingV1().IPAddresses()
}

// inFamilyOrder lists the allocators in the order of svc's IP families, as
// upstream's allocator walks them, then any other family's, IPv4 first: which
// of a dual-stack Service's addresses admission sees first, and so which one
// a refusal names, must not depend on the order of a map.
func (a *Allocators) inFamilyOrder(svc *api.Service) []upstreamipallocator.Interface {
	out := make([]upstreamipallocator.Interface, 0, len(a.ByFamily))
	add := func(family api.IPFamily) {
		if alloc, ok := a.ByFamily[family]; ok && !slices.Contains(out, alloc) {
			out = append(out, alloc)
		}
	}
	for _, family := range svc.Spec.IPFamilies {
		add(family)
	}
	add(api.IPv4Protocol)
	add(api.IPv6Protocol)
	return out
}
