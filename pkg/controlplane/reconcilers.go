package controlplane

import (
	"fmt"
	"net"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	discoveryv1client "k8s.io/client-go/kubernetes/typed/discovery/v1"
	"k8s.io/klog/v2"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/controlplane/reconcilers"

	netforkreconcilers "github.com/netfork/netfork/pkg/controlplane/reconcilers"
)

// LeasesPrefix is upstream's etcd prefix for apiserver leases, shared with upstream apiservers.
const LeasesPrefix = netforkreconcilers.LegacyLeasesPrefix

// newEndpointReconciler is the one place the kubernetes Service's endpoint reconciler is built.
func (c *Config) newEndpointReconciler() (reconcilers.EndpointReconciler, error) {
	klog.InfoS("Using endpoint reconciler", "type", c.EndpointReconcilerType)
	switch c.EndpointReconcilerType {
	case reconcilers.NoneEndpointReconcilerType:
		return reconcilers.NewNoneEndpointReconciler(), nil
	case reconcilers.MasterCountReconcilerType:
		adapter, err := c.newEndpointsAdapter()
		if err != nil {
			return nil, err
		}
		return reconcilers.NewMasterCountEndpointReconciler(c.MasterCount, adapter), nil
	case "", reconcilers.LeaseEndpointReconcilerType:
		adapter, err := c.newEndpointsAdapter()
		if err != nil {
			return nil, err
		}
		storage, err := c.ControlPlane.StorageFactory.NewConfig(api.Resource("apiServerIPInfo"), &api.Endpoints{})
		if err != nil {
			return nil, fmt.Errorf("building storage config for apiserver leases: %w", err)
		}
		leases, err := reconcilers.NewLeases(storage, LeasesPrefix, c.MasterEndpointReconcileTTL)
		if err != nil {
			return nil, fmt.Errorf("creating apiserver leases at %s: %w", LeasesPrefix, err)
		}
		if c.DualStack.Enabled {
			return c.newDualStackLeaseReconciler(leases, storage)
		}
		return reconcilers.NewLeaseEndpointReconciler(adapter, leases), nil
	default:
		return nil, fmt.Errorf("unknown --endpoint-reconciler-type %q", c.EndpointReconcilerType)
	}
}

func (c *Config) newEndpointsAdapter() (reconcilers.EndpointsAdapter, error) {
	endpoints, slices, err := c.newEndpointsClients()
	if err != nil {
		return reconcilers.EndpointsAdapter{}, err
	}
	return reconcilers.NewEndpointsAdapter(endpoints, slices), nil
}

// newEndpointsClients are the loopback clients every reconciler writes the endpoints with.
func (c *Config) newEndpointsClients() (*corev1client.CoreV1Client, *discoveryv1client.DiscoveryV1Client, error) {
	loopback := c.ControlPlane.Generic.LoopbackClientConfig
	endpoints, err := corev1client.NewForConfig(loopback)
	if err != nil {
		return nil, nil, err
	}
	slices, err := discoveryv1client.NewForConfig(loopback)
	if err != nil {
		return nil, nil, err
	}
	return endpoints, slices, nil
}

// newDualStackLeaseReconciler builds netfork's lease reconciler (DualStackAPIServer).
// Its address leases live one reconcile interval longer than upstream's leases,
// so a netfork apiserver that dies drops out of upstream's leases first.
func (c *Config) newDualStackLeaseReconciler(legacy reconcilers.Leases, storage *storagebackend.ConfigForResource) (reconcilers.EndpointReconciler, error) {
	endpoints, slices, err := c.newEndpointsClients()
	if err != nil {
		legacy.Destroy()
		return nil, err
	}
	ttl := c.MasterEndpointReconcileTTL + c.EndpointReconcilerConfig.Interval
	leases, err := netforkreconcilers.NewAddressLeases(storage, netforkreconcilers.AddressLeasesPrefix, ttl)
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
