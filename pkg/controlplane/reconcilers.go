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

	corev1 "k8s.io/api/core/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	discoveryv1client "k8s.io/client-go/kubernetes/typed/discovery/v1"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/controlplane/reconcilers"

	netforkreconcilers "github.com/netfork/netfork/pkg/controlplane/reconcilers"
)

// newDualStackLeaseReconciler builds netfork's lease reconciler
// (DualStackAPIServer), which keeps upstream's leases at upstream's prefix
// beside its own address leases. Those live one reconcile interval longer than
// upstream's, so a netfork apiserver that dies drops out of upstream's first.
// Upstream's Complete builds every other reconciler; this runs after it, on
// the TTL and interval it defaulted.
func (c *Config) newDualStackLeaseReconciler() (reconcilers.EndpointReconciler, error) {
	ttl, interval := c.MasterEndpointReconcileTTL, c.EndpointReconcilerConfig.Interval
	// upstream-shim begin: k8s.io/kubernetes/pkg/controlplane/instance.go Config.createLeaseReconciler
	loopback := c.ControlPlane.Generic.LoopbackClientConfig
	endpoints, err := corev1client.NewForConfig(loopback)
	if err != nil {
		return nil, err
	}
	slices, err := discoveryv1client.NewForConfig(loopback)
	if err != nil {
		return nil, err
	}
	storage, err := c.ControlPlane.StorageFactory.NewConfig(api.Resource("apiServerIPInfo"), &api.Endpoints{})
	if err != nil {
		return nil, fmt.Errorf("building storage config for apiserver leases: %w", err)
	}
	legacy, err := reconcilers.NewLeases(storage, netforkreconcilers.LegacyLeasesPrefix, ttl)
	if err != nil {
		return nil, fmt.Errorf("creating apiserver leases at %s: %w", netforkreconcilers.LegacyLeasesPrefix, err)
	}
	// upstream-shim end
	leases, err := netforkreconcilers.NewAddressLeases(storage, netforkreconcilers.AddressLeasesPrefix, ttl+interval)
	if err != nil {
		legacy.Destroy()
		return nil, err
	}
	addresses := c.DualStack.AdvertiseAddresses
	if len(addresses) == 0 {
		addresses = []net.IP{c.ControlPlane.Generic.PublicAddress}
	}
	r, err := netforkreconcilers.NewLeaseReconciler(netforkreconcilers.Config{
		AdvertiseAddresses: addresses,
		ServiceFamilies:    c.serviceFamilies(),
		Endpoints:          endpoints,
		EndpointSlices:     slices,
		LegacyLeases:       legacy,
		AddressLeases:      leases,
	})
	if err != nil {
		legacy.Destroy()
		leases.Destroy()
		return nil, fmt.Errorf("--advertise-address: %w", err)
	}
	return r, nil
}

// serviceFamilies are the families of --service-cluster-ip-range, primary first.
func (c *Config) serviceFamilies() []corev1.IPFamily {
	families := []corev1.IPFamily{netforkreconcilers.IPFamily(c.ServiceIPRange.IP)}
	if c.SecondaryServiceIPRange.IP != nil {
		families = append(families, netforkreconcilers.IPFamily(c.SecondaryServiceIPRange.IP))
	}
	return families
}
