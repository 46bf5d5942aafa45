package controlplane

import (
	"k8s.io/client-go/kubernetes"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"
	admissionregistrationrest "k8s.io/kubernetes/pkg/registry/admissionregistration/rest"
	apiserverinternalrest "k8s.io/kubernetes/pkg/registry/apiserverinternal/rest"
	appsrest "k8s.io/kubernetes/pkg/registry/apps/rest"
	authenticationrest "k8s.io/kubernetes/pkg/registry/authentication/rest"
	authorizationrest "k8s.io/kubernetes/pkg/registry/authorization/rest"
	autoscalingrest "k8s.io/kubernetes/pkg/registry/autoscaling/rest"
	batchrest "k8s.io/kubernetes/pkg/registry/batch/rest"
	certificatesrest "k8s.io/kubernetes/pkg/registry/certificates/rest"
	coordinationrest "k8s.io/kubernetes/pkg/registry/coordination/rest"
	discoveryrest "k8s.io/kubernetes/pkg/registry/discovery/rest"
	eventsrest "k8s.io/kubernetes/pkg/registry/events/rest"
	flowcontrolrest "k8s.io/kubernetes/pkg/registry/flowcontrol/rest"
	lifecyclerest "k8s.io/kubernetes/pkg/registry/lifecycle/rest"
	noderest "k8s.io/kubernetes/pkg/registry/node/rest"
	policyrest "k8s.io/kubernetes/pkg/registry/policy/rest"
	rbacrest "k8s.io/kubernetes/pkg/registry/rbac/rest"
	resourcerest "k8s.io/kubernetes/pkg/registry/resource/rest"
	schedulingrest "k8s.io/kubernetes/pkg/registry/scheduling/rest"
	storagerest "k8s.io/kubernetes/pkg/registry/storage/rest"
	svmrest "k8s.io/kubernetes/pkg/registry/storagemigration/rest"

	corerest "github.com/netfork/netfork/pkg/registry/core/rest"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddresswriter"
	networkingrest "github.com/netfork/netfork/pkg/registry/networking/rest"
)

// StorageProviders returns the REST storage of every API group: netfork's core
// provider first, then upstream's providers unchanged. The order is upstream's,
// because local discovery lists groups in this order.
func (c CompletedConfig) StorageProviders(client kubernetes.Interface) ([]controlplaneapiserver.RESTStorageProvider, error) {
	// ClusterIP IPAddresses are written in process through the networking
	// group's IPAddress storage, with this apiserver's admission chain.
	ipAddresses := ipaddresswriter.New(c.ControlPlane.Generic.AdmissionControl, client.NetworkingV1())
	core, err := c.newCoreStorageProvider(ipAddresses)
	if err != nil {
		return nil, err
	}

	generic := c.ControlPlane.Generic
	authz := generic.Authorization.Authorizer
	return []controlplaneapiserver.RESTStorageProvider{
		core,
		apiserverinternalrest.StorageProvider{},
		authenticationrest.RESTStorageProvider{Authenticator: generic.Authentication.Authenticator, APIAudiences: generic.Authentication.APIAudiences},
		authorizationrest.RESTStorageProvider{Authorizer: authz, RuleResolver: generic.RuleResolver},
		autoscalingrest.RESTStorageProvider{},
		batchrest.RESTStorageProvider{},
		certificatesrest.RESTStorageProvider{Authorizer: authz},
		coordinationrest.RESTStorageProvider{},
		discoveryrest.StorageProvider{},
		lifecyclerest.RESTStorageProvider{},
		// netfork's: upstream's plus ServiceCIDR validation its allocator needs
		networkingrest.StorageProvider{IPAddressWriter: ipAddresses},
		noderest.RESTStorageProvider{},
		policyrest.RESTStorageProvider{},
		rbacrest.RESTStorageProvider{Authorizer: authz},
		schedulingrest.RESTStorageProvider{},
		storagerest.RESTStorageProvider{},
		svmrest.RESTStorageProvider{},
		flowcontrolrest.RESTStorageProvider{InformerFactory: generic.SharedInformerFactory},
		// apps after extensions-era groups, as upstream, so legacy clients resolve shared names the same way
		appsrest.StorageProvider{},
		admissionregistrationrest.RESTStorageProvider{Authorizer: authz, DiscoveryClient: client.Discovery()},
		eventsrest.RESTStorageProvider{TTL: c.ControlPlane.EventTTL},
		resourcerest.RESTStorageProvider{NamespaceClient: client.CoreV1().Namespaces(), Authorizer: authz},
	}, nil
}

// newCoreStorageProvider is the one place the core group's storage, and with it
// the Service allocators, is built.
func (c CompletedConfig) newCoreStorageProvider(ipAddresses *ipaddresswriter.Writer) (*corerest.Provider, error) {
	return corerest.New(corerest.Config{
		GenericConfig: *c.ControlPlane.NewCoreGenericConfig(),
		Proxy: corerest.ProxyConfig{
			Transport:           c.ControlPlane.ProxyTransport,
			KubeletClientConfig: c.KubeletClientConfig,
		},
		Services: corerest.ServicesConfig{
			ClusterIPRange:          c.ServiceIPRange,
			SecondaryClusterIPRange: c.SecondaryServiceIPRange,
			NodePortRange:           c.ServiceNodePortRange,
			RepairInterval:          c.RepairServicesInterval,
			IPAddressWriter:         ipAddresses,
		},
		EndpointSliceGetter: c.ControlPlane.EndpointSliceGetter,
		Authorizer:          c.ControlPlane.Generic.Authorization.Authorizer,
	})
}
