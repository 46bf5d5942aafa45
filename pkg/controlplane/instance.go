package controlplane

import (
	"fmt"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"
)

// Instance is one running netfork kube-apiserver.
type Instance struct {
	ControlPlane *controlplaneapiserver.Server
}

// New builds the kube-apiserver on top of delegationTarget: upstream's generic
// control plane and storage providers, with netfork's in place of the core and
// networking ones, and the controllers netfork owns.
func (c CompletedConfig) New(delegationTarget genericapiserver.DelegationTarget) (*Instance, error) {
	cp, err := c.Upstream.ControlPlane.New(controlplaneapiserver.KubeAPIServer, delegationTarget)
	if err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(c.Upstream.ControlPlane.Generic.LoopbackClientConfig)
	if err != nil {
		return nil, fmt.Errorf("building loopback client: %w", err)
	}
	providers, err := c.StorageProviders(client)
	if err != nil {
		return nil, err
	}
	if err := cp.InstallAPIs(providers...); err != nil {
		return nil, err
	}
	for _, add := range []func(*genericapiserver.GenericAPIServer, kubernetes.Interface) error{
		c.addKubernetesServiceController,
		c.addDefaultServiceCIDRController,
		c.addServiceCIDRController,
	} {
		if err := add(cp.GenericAPIServer, client); err != nil {
			return nil, err
		}
	}
	return &Instance{ControlPlane: cp}, nil
}
