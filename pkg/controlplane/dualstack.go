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
	"net"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"

	netforkkubernetesservice "github.com/netfork/netfork/pkg/controlplane/controller/kubernetesservice"
	netforkreconcilers "github.com/netfork/netfork/pkg/controlplane/reconcilers"
)

// addDualStackKubernetesServiceController starts netfork's kubernetes-Service
// controller, which goes with netfork's lease reconciler (DualStackAPIServer).
func (c CompletedConfig) addDualStackKubernetesServiceController(server *genericapiserver.GenericAPIServer, client kubernetes.Interface, r netforkreconcilers.Reconciler, publicServicePort int) error {
	addresses := c.DualStack.AdvertiseAddresses
	if len(addresses) == 0 {
		addresses = []net.IP{c.Upstream.ControlPlane.Generic.PublicAddress}
	}
	for _, ip := range addresses {
		if err := r.ValidateIP(ip); err != nil {
			return fmt.Errorf("cannot use --advertise-address %s with the endpoint reconciler: %w", ip, err)
		}
	}
	ctrl, err := netforkkubernetesservice.New(netforkkubernetesservice.Config{
		Reconciler:                r,
		Interval:                  c.Upstream.EndpointReconcilerConfig.Interval,
		ServiceIP:                 c.Upstream.APIServerServiceIP,
		SecondaryServiceIP:        c.Upstream.SecondaryAPIServerServiceIP,
		ServicePort:               c.Upstream.APIServerServicePort,
		PublicServicePort:         publicServicePort,
		KubernetesServiceNodePort: c.Upstream.KubernetesServiceNodePort,
		ShutdownDelay:             c.Upstream.ControlPlane.Generic.ShutdownDelayDuration,
	}, client, c.Upstream.ControlPlane.Extra.VersionedInformers.Core().V1().Services())
	if err != nil {
		return err
	}
	return addKubernetesServiceHooks(server, ctrl)
}
