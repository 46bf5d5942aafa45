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

package rest

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/kubernetes/pkg/apis/networking"
	ipaddressstore "k8s.io/kubernetes/pkg/registry/networking/ipaddress/storage"
	upstreamnetworkingrest "k8s.io/kubernetes/pkg/registry/networking/rest"
	servicecidrstore "k8s.io/kubernetes/pkg/registry/networking/servicecidr/storage"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
	"github.com/netfork/netfork/pkg/registry/internal/jointwrite"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddresswriter"
)

// minIPv6PrefixBits is the shortest IPv6 ServiceCIDR the allocator indexes, as upstream's allocator.
const minIPv6PrefixBits = 64

// StorageProvider is upstream's networking provider with netfork's ServiceCIDR
// validation; it binds IPAddressWriter and IPAddressIndex, when set, to the
// v1 IPAddress storage,
// and adds the counts of Usage, when set, to the ServiceCIDR table.
type StorageProvider struct {
	upstreamnetworkingrest.RESTStorageProvider

	IPAddressWriter *ipaddresswriter.Writer
	// IPAddressIndex, when set, is bound to the v1 IPAddress storage.
	IPAddressIndex *ipaddressindex.Index
	Usage          ipallocator.UsageReader
}

// NewRESTStorage builds upstream's storage and wraps the ServiceCIDR strategies of every version.
func (p StorageProvider) NewRESTStorage(apiResourceConfigSource serverstorage.APIResourceConfigSource, restOptionsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	if p.IPAddressWriter != nil {
		// The IPAddress storage prepares the writer's IPAddresses for the
		// Service storage to write (see package jointwrite).
		restOptionsGetter = jointwrite.Decorating{RESTOptionsGetter: restOptionsGetter, Resource: networking.Resource("ipaddresses"), Wrap: preparing}
	}
	info, err := p.RESTStorageProvider.NewRESTStorage(apiResourceConfigSource, restOptionsGetter)
	if err != nil {
		return info, err
	}
	for version, resources := range info.VersionedResourcesStorageMap {
		storage, ok := resources["servicecidrs"]
		if !ok {
			continue
		}
		cidrs, ok := storage.(*servicecidrstore.REST)
		if !ok {
			return info, fmt.Errorf("networking %s servicecidrs storage is %T, not upstream's servicecidr REST: netfork cannot add its validation", version, storage)
		}
		wrapStrategies(cidrs.Store)
		if p.Usage != nil {
			cidrs.TableConvertor = usageTable{TableConvertor: cidrs.TableConvertor, usage: p.Usage}
		}
	}
	if err := p.bindIPAddresses(info); err != nil {
		return info, err
	}
	return info, nil
}

// bindIPAddresses makes the writer write through, and the index read, the v1
// IPAddress storage. Without one (the resource disabled with
// --runtime-config) both keep the loopback client, which answers as
// upstream's would.
func (p StorageProvider) bindIPAddresses(info genericapiserver.APIGroupInfo) error {
	if p.IPAddressWriter == nil && p.IPAddressIndex == nil {
		return nil
	}
	storage, ok := info.VersionedResourcesStorageMap[networkingv1.SchemeGroupVersion.Version]["ipaddresses"]
	if !ok {
		return nil
	}
	ipAddresses, ok := storage.(*ipaddressstore.REST)
	if !ok {
		return fmt.Errorf("networking v1 ipaddresses storage is %T, not upstream's ipaddress REST: netfork cannot write or read IPAddresses through it", storage)
	}
	if p.IPAddressIndex != nil {
		if err := p.IPAddressIndex.Bind(ipAddresses.Store); err != nil {
			return err
		}
	}
	if p.IPAddressWriter != nil {
		return p.IPAddressWriter.Bind(ipAddresses.Store)
	}
	return nil
}

// preparing wraps the IPAddress storage b in a jointwrite.PreparingStorage.
func preparing(b jointwrite.Built) (storage.Interface, func(), error) {
	s, err := jointwrite.NewPreparingStorage(b)
	return s, nil, err
}

// wrapStrategies adds netfork's checks to a ServiceCIDR store's create and update validation.
func wrapStrategies(store *genericregistry.Store) {
	store.CreateStrategy = createStrategy{store.CreateStrategy}
	store.UpdateStrategy = updateStrategy{store.UpdateStrategy}
}

type createStrategy struct{ rest.RESTCreateStrategy }

func (s createStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	errs := s.RESTCreateStrategy.Validate(ctx, obj)
	if cidr, ok := obj.(*networking.ServiceCIDR); ok && len(errs) == 0 {
		errs = append(errs, validateIndexable(cidr, nil)...)
	}
	return errs
}

type updateStrategy struct{ rest.RESTUpdateStrategy }

func (s updateStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	errs := s.RESTUpdateStrategy.ValidateUpdate(ctx, obj, old)
	cidr, ok := obj.(*networking.ServiceCIDR)
	oldCIDR, oldOK := old.(*networking.ServiceCIDR)
	if ok && oldOK && len(errs) == 0 {
		errs = append(errs, validateIndexable(cidr, oldCIDR.Spec.CIDRs)...)
	}
	return errs
}

// validateIndexable refuses the CIDRs of sc, except those in keep (already
// stored, e.g. by an upstream apiserver), that cover a whole address family
// or, for IPv6, more than a /64.
func validateIndexable(sc *networking.ServiceCIDR, keep []string) field.ErrorList {
	var errs field.ErrorList
	for i, s := range sc.Spec.CIDRs {
		if slices.Contains(keep, s) {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			continue // upstream's validation reports it
		}
		path := field.NewPath("spec", "cidrs").Index(i)
		switch {
		case p.Bits() == 0:
			errs = append(errs, field.Invalid(path, s, "must not be a /0: a ServiceCIDR covering the whole address family would hand out any address as a ClusterIP"))
		case p.Addr().Is6() && p.Bits() < minIPv6PrefixBits:
			errs = append(errs, field.Invalid(path, s, fmt.Sprintf("IPv6 prefix must be /%d or longer: the ClusterIP allocator does not index larger ranges", minIPv6PrefixBits)))
		}
	}
	return errs
}
