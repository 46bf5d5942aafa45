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

package controlplane

import (
	"fmt"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/networking"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"
	upstreamnetworkingrest "k8s.io/kubernetes/pkg/registry/networking/rest"

	"github.com/netfork/netfork/pkg/features"
	corerest "github.com/netfork/netfork/pkg/registry/core/rest"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddresswriter"
	networkingrest "github.com/netfork/netfork/pkg/registry/networking/rest"
)

// StorageProviders returns upstream's storage providers, in upstream's order
// (local discovery lists groups in it), with netfork's core and networking
// providers in place of upstream's.
func (c CompletedConfig) StorageProviders(client *kubernetes.Clientset) ([]controlplaneapiserver.RESTStorageProvider, error) {
	providers, err := c.upstreamStorageProviders(client)
	if err != nil {
		return nil, err
	}
	// ClusterIP IPAddresses are written in process through the networking
	// group's IPAddress storage, with this apiserver's admission chain.
	ipAddresses := ipaddresswriter.New(c.Upstream.ControlPlane.Generic.AdmissionControl, c.Upstream.ControlPlane.Generic.RequestInfoResolver, client.NetworkingV1())
	// They are read, in process too, from the same storage: the allocators,
	// the repair loop and the ServiceCIDR controllers follow one compact
	// index of them rather than a loopback informer.
	c.ipAddresses = ipaddressindex.New(client)
	var (
		core       *corerest.Provider
		networkIdx = -1
	)
	for i, p := range providers {
		switch p.GroupName() {
		case api.GroupName:
			core, err = c.newCoreStorageProvider(p, ipAddresses, c.ipAddresses)
			if err != nil {
				return nil, err
			}
			providers[i] = core
		case networking.GroupName:
			networkIdx = i
		}
	}
	if core == nil || networkIdx < 0 {
		return nil, fmt.Errorf("upstream's storage providers lack the core or networking group netfork replaces")
	}
	upstream, ok := providers[networkIdx].(upstreamnetworkingrest.RESTStorageProvider)
	if !ok {
		return nil, fmt.Errorf("upstream's networking storage provider is %T, which netfork's does not wrap", providers[networkIdx])
	}
	// The ServiceCIDR table and the usage controller read the core
	// storage's allocators, which this apiserver's creates keep current.
	c.clusterIPUsage = core.ClusterIPUsage()
	providers[networkIdx] = networkingrest.StorageProvider{RESTStorageProvider: upstream, IPAddressWriter: ipAddresses, IPAddressIndex: c.ipAddresses, Usage: c.clusterIPUsage}
	return providers, nil
}

// upstreamStorageProviders calls upstream's StorageProviders with an informer
// factory that is never started in place of the apiserver's: upstream's core
// provider wires the allocators and repair loops netfork replaces to those
// informers, and on the apiserver's their event handlers would queue every
// Service and IPAddress for loops that never run. Nothing else upstream's
// providers build reads that factory.
func (c CompletedConfig) upstreamStorageProviders(client *kubernetes.Clientset) ([]controlplaneapiserver.RESTStorageProvider, error) {
	extra := c.Upstream.ControlPlane.Extra
	live := extra.VersionedInformers
	extra.VersionedInformers = informers.NewSharedInformerFactory(client, 0)
	defer func() { extra.VersionedInformers = live }()
	return c.Upstream.StorageProviders(client)
}

// newCoreStorageProvider is the one place the core group's storage, and with it
// the Service allocators, is built.
func (c CompletedConfig) newCoreStorageProvider(upstream controlplaneapiserver.RESTStorageProvider, ipAddresses *ipaddresswriter.Writer, index *ipaddressindex.Index) (*corerest.Provider, error) {
	cp := c.Upstream.ControlPlane
	return corerest.New(corerest.Config{
		Upstream:             upstream,
		StorageFactory:       cp.StorageFactory,
		LoopbackClientConfig: cp.Generic.LoopbackClientConfig,
		Informers:            cp.VersionedInformers,
		ProxyTransport:       cp.ProxyTransport,
		EndpointSliceGetter:  cp.EndpointSliceGetter,
		Services: corerest.ServicesConfig{
			ClusterIPRange:          c.Upstream.ServiceIPRange,
			SecondaryClusterIPRange: c.Upstream.SecondaryServiceIPRange,
			NodePortRange:           c.Upstream.ServiceNodePortRange,
			Allocation:              features.ClusterIPAllocationOf(c.FeatureGate),
			RepairInterval:          c.Upstream.RepairServicesInterval,
			IPAddressWriter:         ipAddresses,
			IPAddresses:             index,
		},
	})
}
