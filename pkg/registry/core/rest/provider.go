package rest

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/registry/core/componentstatus"
	endpointsstore "k8s.io/kubernetes/pkg/registry/core/endpoint/storage"
	limitrangestore "k8s.io/kubernetes/pkg/registry/core/limitrange/storage"
	nodestore "k8s.io/kubernetes/pkg/registry/core/node/storage"
	pvstore "k8s.io/kubernetes/pkg/registry/core/persistentvolume/storage"
	pvcstore "k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim/storage"
	podstore "k8s.io/kubernetes/pkg/registry/core/pod/storage"
	podtemplatestore "k8s.io/kubernetes/pkg/registry/core/podtemplate/storage"
	controllerstore "k8s.io/kubernetes/pkg/registry/core/replicationcontroller/storage"
	servicestore "k8s.io/kubernetes/pkg/registry/core/service/storage"
	serviceaccountstore "k8s.io/kubernetes/pkg/registry/core/serviceaccount/storage"
)

// Provider builds the core group's REST storage with netfork's Service allocators.
type Provider struct {
	Config

	allocators *serviceAllocators
}

var (
	_ genericapiserver.PostStartHookProvider = &Provider{}
	_ interface {
		GroupName() string
		NewRESTStorage(serverstorage.APIResourceConfigSource, generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error)
	} = &Provider{}
)

// New builds the provider and its Service allocators; nothing is served until NewRESTStorage.
func New(c Config) (*Provider, error) {
	client, err := kubernetes.NewForConfig(c.LoopbackClientConfig)
	if err != nil {
		return nil, fmt.Errorf("building loopback client for the core storage: %w", err)
	}
	allocators, err := c.newServiceAllocators(client)
	if err != nil {
		return nil, err
	}
	return &Provider{Config: c, allocators: allocators}, nil
}

// GroupName is the core group's name, "".
func (p *Provider) GroupName() string {
	return api.GroupName
}

// NewRESTStorage returns upstream's generic core storage plus the resources only
// a kube-apiserver serves, Services backed by netfork's allocators.
func (p *Provider) NewRESTStorage(apiResourceConfigSource serverstorage.APIResourceConfigSource, restOptionsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	apiGroupInfo, err := p.GenericConfig.NewRESTStorage(apiResourceConfigSource, restOptionsGetter)
	if err != nil {
		return genericapiserver.APIGroupInfo{}, err
	}
	storage := apiGroupInfo.VersionedResourcesStorageMap["v1"]
	if storage == nil {
		storage = map[string]rest.Storage{}
	}

	resources, err := p.kubeOnlyStorage(restOptionsGetter, storage)
	if err != nil {
		return genericapiserver.APIGroupInfo{}, err
	}
	for _, r := range resources {
		if !apiResourceConfigSource.ResourceEnabled(corev1.SchemeGroupVersion.WithResource(r.name)) {
			continue
		}
		for sub, s := range r.storage {
			if old, ok := storage[sub]; ok && old != s {
				// a kube-apiserver storage replaces the generic one (serviceaccounts); stop the old one's watches
				old.Destroy()
			}
			storage[sub] = s
		}
	}
	if len(storage) > 0 {
		apiGroupInfo.VersionedResourcesStorageMap["v1"] = storage
	}
	return apiGroupInfo, nil
}

// resourceStorage is one resource's storage, keyed by resource and "resource/subresource".
type resourceStorage struct {
	name    string
	storage map[string]rest.Storage
}

// kubeOnlyStorage builds the core resources that need a kube-apiserver's
// kubelet, proxy and allocator wiring; generic holds the generic ones built already.
func (p *Provider) kubeOnlyStorage(optsGetter generic.RESTOptionsGetter, generic map[string]rest.Storage) ([]resourceStorage, error) {
	clients, err := newLoopbackClients(p.LoopbackClientConfig)
	if err != nil {
		return nil, err
	}

	nodes, err := nodestore.NewStorage(optsGetter, p.Proxy.KubeletClientConfig, p.Proxy.Transport)
	if err != nil {
		return nil, err
	}
	pods, err := podstore.NewStorage(optsGetter, nodes.KubeletConnectionInfo, p.Proxy.Transport, clients.policy, p.Authorizer)
	if err != nil {
		return nil, err
	}
	services, serviceStatus, serviceProxy, err := servicestore.NewREST(optsGetter,
		p.allocators.clusterIPs.Primary.IPFamily(),
		p.allocators.clusterIPs.ByFamily,
		p.allocators.nodePorts,
		p.EndpointSliceGetter,
		pods.Pod,
		p.Proxy.Transport)
	if err != nil {
		return nil, err
	}
	wrapServiceStore(services.Store, p.allocators.clusterIPs)
	podTemplates, err := podtemplatestore.NewREST(optsGetter)
	if err != nil {
		return nil, err
	}
	limitRanges, err := limitrangestore.NewREST(optsGetter)
	if err != nil {
		return nil, err
	}
	pvs, pvStatus, err := pvstore.NewREST(optsGetter)
	if err != nil {
		return nil, err
	}
	pvcs, pvcStatus, err := pvcstore.NewREST(optsGetter)
	if err != nil {
		return nil, err
	}
	endpoints, err := endpointsstore.NewREST(optsGetter)
	if err != nil {
		return nil, err
	}
	controllers, err := controllerstore.NewStorage(optsGetter)
	if err != nil {
		return nil, err
	}

	resources := []resourceStorage{
		{"pods", podSubresources(pods)},
		{"bindings", map[string]rest.Storage{"bindings": pods.LegacyBinding}},
		{"podtemplates", map[string]rest.Storage{"podtemplates": podTemplates}},
		{"replicationcontrollers", replicationControllerSubresources(controllers)},
		{"services", map[string]rest.Storage{"services": services, "services/proxy": serviceProxy, "services/status": serviceStatus}},
		{"endpoints", map[string]rest.Storage{"endpoints": endpoints}},
		{"nodes", map[string]rest.Storage{"nodes": nodes.Node, "nodes/proxy": nodes.Proxy, "nodes/status": nodes.Status}},
		{"limitranges", map[string]rest.Storage{"limitranges": limitRanges}},
		{"persistentvolumes", map[string]rest.Storage{"persistentvolumes": pvs, "persistentvolumes/status": pvStatus}},
		{"persistentvolumeclaims", map[string]rest.Storage{"persistentvolumeclaims": pvcs, "persistentvolumeclaims/status": pvcStatus}},
		{"componentstatuses", map[string]rest.Storage{"componentstatuses": componentstatus.NewStorage(componentStatusServers(p.StorageFactory))}},
	}

	if p.ServiceAccountIssuer != nil {
		serviceAccounts, err := p.podAwareServiceAccounts(optsGetter, clients, pods, nodes, generic["secrets"])
		if err != nil {
			return nil, err
		}
		resources = append(resources, serviceAccounts)
	}
	return resources, nil
}

// podAwareServiceAccounts replaces the generic serviceaccounts storage with one
// whose tokens can be bound to pods, nodes and secrets.
func (p *Provider) podAwareServiceAccounts(optsGetter generic.RESTOptionsGetter, clients *loopbackClients, pods podstore.PodStorage, nodes *nodestore.NodeStorage, secrets rest.Storage) (resourceStorage, error) {
	secretGetter, ok := secrets.(rest.Getter)
	if !ok {
		return resourceStorage{}, fmt.Errorf("secrets storage %T cannot get secrets for service account tokens", secrets)
	}
	var nodeGetter rest.Getter
	if utilfeature.DefaultFeatureGate.Enabled(features.ServiceAccountTokenNodeBinding) ||
		utilfeature.DefaultFeatureGate.Enabled(features.ServiceAccountTokenPodNodeInfo) {
		nodeGetter = nodes.Node.Store
	}
	sa, err := serviceaccountstore.NewREST(optsGetter, p.ServiceAccountIssuer, p.APIAudiences, p.Authorizer,
		p.ServiceAccountMaxExpiration, pods.Pod.Store, secretGetter, nodeGetter,
		clients.admission.ValidatingWebhookConfigurations(), clients.admission.MutatingWebhookConfigurations(),
		p.ExtendExpiration, p.MaxExtendedExpiration)
	if err != nil {
		return resourceStorage{}, err
	}
	storage := map[string]rest.Storage{"serviceaccounts": sa}
	if sa.Token != nil {
		storage["serviceaccounts/token"] = sa.Token
	}
	return resourceStorage{name: "serviceaccounts", storage: storage}, nil
}

func podSubresources(pods podstore.PodStorage) map[string]rest.Storage {
	s := map[string]rest.Storage{
		"pods":                     pods.Pod,
		"pods/attach":              pods.Attach,
		"pods/status":              pods.Status,
		"pods/log":                 pods.Log,
		"pods/exec":                pods.Exec,
		"pods/portforward":         pods.PortForward,
		"pods/proxy":               pods.Proxy,
		"pods/binding":             pods.Binding,
		"pods/ephemeralcontainers": pods.EphemeralContainers,
	}
	if pods.Eviction != nil {
		s["pods/eviction"] = pods.Eviction
	}
	if utilfeature.DefaultFeatureGate.Enabled(features.InPlacePodVerticalScaling) {
		s["pods/resize"] = pods.Resize
	}
	return s
}

func replicationControllerSubresources(rc controllerstore.ControllerStorage) map[string]rest.Storage {
	s := map[string]rest.Storage{
		"replicationcontrollers":        rc.Controller,
		"replicationcontrollers/status": rc.Status,
	}
	if legacyscheme.Scheme.IsVersionRegistered(schema.GroupVersion{Group: "autoscaling", Version: "v1"}) {
		s["replicationcontrollers/scale"] = rc.Scale
	}
	return s
}
