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
	"context"
	"fmt"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/kubernetes/pkg/registry/core/rangeallocation"
	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
	upstreamportallocator "k8s.io/kubernetes/pkg/registry/core/service/portallocator"

	"github.com/netfork/netfork/pkg/registry/core/service/allocator"
	allocatorstorage "github.com/netfork/netfork/pkg/registry/core/service/allocator/storage"
)

// BitmapKey is upstream's key of the NodePort bitmap, shared with upstream apiservers.
const BitmapKey = "/ranges/servicenodeports"

// NewStored returns the NodePort allocator for portRange, stored in etcd through
// storageConfig, and the registry its repair loop rebuilds. A bitmap missing
// from etcd is created by the repair loop's first pass, as upstream does.
func NewStored(portRange utilnet.PortRange, storageConfig *storagebackend.ConfigForResource) (upstreamportallocator.Interface, rangeallocation.RangeRegistry, error) {
	var registry rangeallocation.RangeRegistry
	alloc, err := New(portRange, func(size int, rangeSpec string, band int) (upstreamallocator.Interface, error) {
		m, err := allocator.NewAllocationMap(size, rangeSpec, band)
		if err != nil {
			return nil, err
		}
		etcd, err := allocatorstorage.New(m, BitmapKey, storageConfig,
			allocatorstorage.WithDescription("NodePort bitmap", "--service-node-port-range"))
		if err != nil {
			return nil, err
		}
		if err := etcd.Init(context.TODO()); err != nil {
			etcd.Destroy()
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
