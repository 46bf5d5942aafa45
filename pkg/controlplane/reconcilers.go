package controlplane

import (
	"fmt"

	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	discoveryv1client "k8s.io/client-go/kubernetes/typed/discovery/v1"
	"k8s.io/klog/v2"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/controlplane/reconcilers"
)

// LeasesPrefix is upstream's etcd prefix for apiserver leases, shared with upstream apiservers.
const LeasesPrefix = "/masterleases/"

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
		return reconcilers.NewLeaseEndpointReconciler(adapter, leases), nil
	default:
		return nil, fmt.Errorf("unknown --endpoint-reconciler-type %q", c.EndpointReconcilerType)
	}
}

func (c *Config) newEndpointsAdapter() (reconcilers.EndpointsAdapter, error) {
	loopback := c.ControlPlane.Generic.LoopbackClientConfig
	endpoints, err := corev1client.NewForConfig(loopback)
	if err != nil {
		return reconcilers.EndpointsAdapter{}, err
	}
	slices, err := discoveryv1client.NewForConfig(loopback)
	if err != nil {
		return reconcilers.EndpointsAdapter{}, err
	}
	return reconcilers.NewEndpointsAdapter(endpoints, slices), nil
}
