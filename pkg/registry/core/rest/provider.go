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

	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/client-go/kubernetes"
	api "k8s.io/kubernetes/pkg/apis/core"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"
	servicestore "k8s.io/kubernetes/pkg/registry/core/service/storage"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
)

// Provider is upstream's core provider with netfork's Service storage.
type Provider struct {
	Config

	allocators *serviceAllocators
}

var (
	_ controlplaneapiserver.RESTStorageProvider = &Provider{}
	_ genericapiserver.PostStartHookProvider    = &Provider{}
)

// New builds netfork's Service allocators around upstream's provider c.Upstream;
// nothing is served until NewRESTStorage.
func New(c Config) (*Provider, error) {
	if c.Upstream == nil || c.Upstream.GroupName() != api.GroupName {
		return nil, fmt.Errorf("netfork's core storage needs upstream's core (%q) provider to wrap", api.GroupName)
	}
	client, err := kubernetes.NewForConfig(c.LoopbackClientConfig)
	if err != nil {
		return nil, fmt.Errorf("building loopback client for the core storage: %w", err)
	}
	allocators, err := c.newServiceAllocators(client)
	if err != nil {
		return nil, err
	}
	return &Provider{Config: c, allocators: allocators}, nil
}

// ClusterIPUsage reads how full each ServiceCIDR prefix is from the ClusterIP allocators' memory.
func (p *Provider) ClusterIPUsage() ipallocator.UsageReader {
	return p.allocators.clusterIPs
}

// GroupName is the core group's name, "".
func (p *Provider) GroupName() string {
	return api.GroupName
}

// NewRESTStorage returns upstream's core storage with the Service storage, and
// the allocators upstream built for it, replaced by netfork's.
func (p *Provider) NewRESTStorage(apiResourceConfigSource serverstorage.APIResourceConfigSource, restOptionsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	info, err := p.Upstream.NewRESTStorage(apiResourceConfigSource, restOptionsGetter)
	if err != nil {
		return info, err
	}
	storage := info.VersionedResourcesStorageMap["v1"]
	upstreamServices, ok := storage["services"]
	if !ok {
		return info, nil // --runtime-config disabled Services
	}
	// REST.Destroy stops the Service watch cache and upstream's allocators with it
	defer upstreamServices.Destroy()
	pods, ok := storage["pods"].(servicestore.PodStorage)
	if !ok {
		return info, fmt.Errorf("the Service storage needs the pods storage, which is %T", storage["pods"])
	}
	joint, err := newJointStorage(p.StorageFactory)
	if err != nil {
		return info, err
	}
	services, status, proxy, err := servicestore.NewREST(joint.decorate(restOptionsGetter),
		p.allocators.clusterIPs.Primary.IPFamily(),
		p.allocators.clusterIPs.ByFamily,
		p.allocators.nodePorts,
		p.EndpointSliceGetter,
		pods,
		p.ProxyTransport)
	if err != nil {
		return info, err
	}
	if err := wrapServiceStore(services.Store, p.allocators.clusterIPs); err != nil {
		services.Destroy()
		return info, err
	}
	for name, s := range map[string]rest.Storage{"services": joint.rest(services, p.allocators.clusterIPs.PrepareRelease), "services/status": status, "services/proxy": proxy} {
		storage[name] = s
	}
	return info, nil
}
