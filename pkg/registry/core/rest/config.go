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
	"net"
	"net/http"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/util/proxy"
	"k8s.io/client-go/informers"
	restclient "k8s.io/client-go/rest"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"

	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
)

// Config holds what the core group's storage is built from.
type Config struct {
	// Upstream is upstream's core provider; it builds every core resource.
	Upstream controlplaneapiserver.RESTStorageProvider

	StorageFactory       serverstorage.StorageFactory
	LoopbackClientConfig *restclient.Config
	// Informers are the apiserver's running informers, which feed netfork's
	// allocators and repair loops.
	Informers informers.SharedInformerFactory

	// ProxyTransport reaches pods for the services/proxy subresource.
	ProxyTransport      http.RoundTripper
	EndpointSliceGetter proxy.EndpointSliceGetter

	Services ServicesConfig
}

// ServicesConfig holds the --service-* ranges and the repair loops' interval.
type ServicesConfig struct {
	ClusterIPRange          net.IPNet
	SecondaryClusterIPRange net.IPNet
	NodePortRange           utilnet.PortRange

	// Allocation is the ClusterIP allocation mode the feature gates select.
	Allocation features.ClusterIPAllocation

	RepairInterval time.Duration

	// IPAddressWriter writes the IPAddresses of ClusterIPs; nil writes them
	// through the loopback client.
	IPAddressWriter ipallocator.IPAddressWriter
	// IPAddresses is the apiserver's IPAddress index, which the allocators
	// and the repair loop follow when ClusterIPs are IPAddresses.
	IPAddresses *ipaddressindex.Index
}
