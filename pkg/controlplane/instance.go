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
	// upstream-shim begin: k8s.io/kubernetes/pkg/controlplane/instance.go CompletedConfig.New
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
	// upstream-shim end
	for _, add := range []func(*genericapiserver.GenericAPIServer, kubernetes.Interface) error{
		c.addKubernetesServiceController,
		c.addDefaultServiceCIDRController,
		c.addServiceCIDRController,
		c.addServiceRangesPublisher,
	} {
		if err := add(cp.GenericAPIServer, client); err != nil {
			return nil, err
		}
	}
	return &Instance{ControlPlane: cp}, nil
}
