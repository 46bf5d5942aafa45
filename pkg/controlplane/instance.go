package controlplane

import (
	"fmt"
	"reflect"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"
	kubeletclient "k8s.io/kubernetes/pkg/kubelet/client"
)

// Instance is one running netfork kube-apiserver.
type Instance struct {
	ControlPlane *controlplaneapiserver.Server
}

// New builds the kube-apiserver on top of delegationTarget: upstream's generic
// control plane, netfork's storage providers and netfork's controllers.
func (c CompletedConfig) New(delegationTarget genericapiserver.DelegationTarget) (*Instance, error) {
	if reflect.DeepEqual(c.KubeletClientConfig, kubeletclient.KubeletClientConfig{}) {
		return nil, fmt.Errorf("controlplane.New() called with an empty KubeletClientConfig")
	}
	cp, err := c.ControlPlane.New(controlplaneapiserver.KubeAPIServer, delegationTarget)
	if err != nil {
		return nil, err
	}
	s := &Instance{ControlPlane: cp}

	client, err := kubernetes.NewForConfig(c.ControlPlane.Generic.LoopbackClientConfig)
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
	if err := c.addKubernetesServiceController(cp.GenericAPIServer, client); err != nil {
		return nil, err
	}
	if err := c.addDefaultServiceCIDRController(cp.GenericAPIServer, client); err != nil {
		return nil, err
	}
	if err := c.addServiceCIDRController(cp.GenericAPIServer, client); err != nil {
		return nil, err
	}
	return s, nil
}
