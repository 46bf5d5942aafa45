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

package rest

import (
	"fmt"

	"k8s.io/client-go/kubernetes"
	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamportallocator "k8s.io/kubernetes/pkg/registry/core/service/portallocator"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
	ipcontroller "github.com/netfork/netfork/pkg/registry/core/service/ipallocator/controller"
	"github.com/netfork/netfork/pkg/registry/core/service/portallocator"
	portcontroller "github.com/netfork/netfork/pkg/registry/core/service/portallocator/controller"
)

// serviceAllocators are the Service storage's allocators and the repair loops that keep them true.
type serviceAllocators struct {
	clusterIPs      *ipallocator.Allocators
	nodePorts       upstreamportallocator.Interface
	clusterIPRepair ipcontroller.Runner
	nodePortRepair  portcontroller.Runner
}

// newServiceAllocators is the single seam through which the core storage gets
// its ClusterIP and NodePort allocators and their repair loops.
func (c *Config) newServiceAllocators(client kubernetes.Interface) (*serviceAllocators, error) {
	serviceStorage, err := c.StorageFactory.NewConfig(api.Resource("services"), &api.Service{})
	if err != nil {
		return nil, fmt.Errorf("building storage config for services: %w", err)
	}

	clusterIPs, err := ipallocator.NewAllocators(ipallocator.Config{
		PrimaryRange:    c.Services.ClusterIPRange,
		SecondaryRange:  c.Services.SecondaryClusterIPRange,
		Allocation:      c.Services.Allocation,
		StorageConfig:   serviceStorage.ForResource(api.Resource("serviceipallocations")),
		Client:          client,
		IPAddressWriter: c.Services.IPAddressWriter,
		Informers:       c.Informers,
		IPAddresses:     c.Services.IPAddresses,
	})
	if err != nil {
		return nil, err
	}

	nodePorts, nodePortBitmap, err := portallocator.NewStored(c.Services.NodePortRange, serviceStorage.ForResource(api.Resource("servicenodeportallocations")))
	if err != nil {
		clusterIPs.Destroy()
		return nil, err
	}

	return &serviceAllocators{
		clusterIPs: clusterIPs,
		nodePorts:  nodePorts,
		clusterIPRepair: ipcontroller.NewRepair(ipcontroller.Config{
			Interval:        c.Services.RepairInterval,
			Allocation:      c.Services.Allocation,
			Client:          client,
			Informers:       c.Informers,
			IPAddresses:     c.Services.IPAddresses,
			PrimaryRange:    c.Services.ClusterIPRange,
			PrimaryBitmap:   clusterIPs.PrimaryBitmap,
			SecondaryRange:  c.Services.SecondaryClusterIPRange,
			SecondaryBitmap: clusterIPs.SecondaryBitmap,
			LegacyBitmaps:   clusterIPs.LegacyBitmaps,
		}),
		nodePortRepair: portcontroller.NewRepair(c.Services.RepairInterval, client, c.Services.NodePortRange, nodePortBitmap),
	}, nil
}
