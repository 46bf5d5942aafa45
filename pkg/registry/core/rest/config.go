package rest

import (
	"net"
	"net/http"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/util/proxy"
	kubeletclient "k8s.io/kubernetes/pkg/kubelet/client"
	upstreamcorerest "k8s.io/kubernetes/pkg/registry/core/rest"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
)

// Config holds what the core group's storage is built from.
type Config struct {
	// GenericConfig builds the core resources a generic control plane has too
	// (namespaces, secrets, configmaps, events, ...), with upstream's code.
	upstreamcorerest.GenericConfig

	Proxy    ProxyConfig
	Services ServicesConfig

	EndpointSliceGetter proxy.EndpointSliceGetter
	Authorizer          authorizer.Authorizer
}

// ProxyConfig is how the node, pod and service proxy subresources reach kubelets.
type ProxyConfig struct {
	Transport           http.RoundTripper
	KubeletClientConfig kubeletclient.KubeletClientConfig
}

// ServicesConfig holds the --service-* ranges and the repair loops' interval.
type ServicesConfig struct {
	ClusterIPRange          net.IPNet
	SecondaryClusterIPRange net.IPNet
	NodePortRange           utilnet.PortRange

	RepairInterval time.Duration

	// IPAddressWriter writes the IPAddresses of ClusterIPs; nil writes them
	// through the loopback client.
	IPAddressWriter ipallocator.IPAddressWriter
	// RepairStartupTimeout bounds how long the start-up hook waits for the
	// first repair passes before it fails the apiserver's start.
	RepairStartupTimeout time.Duration
}
