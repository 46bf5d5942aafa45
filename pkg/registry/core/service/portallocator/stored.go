package portallocator

import (
	"fmt"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/kubernetes/pkg/registry/core/rangeallocation"
	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
	upstreamallocatorstorage "k8s.io/kubernetes/pkg/registry/core/service/allocator/storage"
	upstreamportallocator "k8s.io/kubernetes/pkg/registry/core/service/portallocator"
)

// BitmapKey is upstream's key of the NodePort bitmap, shared with upstream apiservers.
const BitmapKey = "/ranges/servicenodeports"

// NewStored returns the NodePort allocator for portRange, stored in etcd through
// storageConfig, and the registry its repair loop rebuilds.
func NewStored(portRange utilnet.PortRange, storageConfig *storagebackend.ConfigForResource) (upstreamportallocator.Interface, rangeallocation.RangeRegistry, error) {
	var registry rangeallocation.RangeRegistry
	alloc, err := upstreamportallocator.New(portRange, func(max int, rangeSpec string, offset int) (upstreamallocator.Interface, error) {
		mem := upstreamallocator.NewAllocationMapWithOffset(max, rangeSpec, offset)
		etcd, err := upstreamallocatorstorage.NewEtcd(mem, BitmapKey, storageConfig)
		if err != nil {
			return nil, err
		}
		registry = etcd
		return etcd, nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("cannot create NodePort allocator for %s: %w", portRange.String(), err)
	}
	alloc.EnableMetrics()
	return alloc, registry, nil
}
