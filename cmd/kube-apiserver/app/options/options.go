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

package options

import (
	"fmt"

	"k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	cliflag "k8s.io/component-base/cli/flag"
	basecompatibility "k8s.io/component-base/compatibility"
	upstreamoptions "k8s.io/kubernetes/cmd/kube-apiserver/app/options"

	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/staging-patches/apiserver/pkg/server/options/dualstack"
)

const (
	// BindAddressFlag is upstream's --bind-address, which netfork lets take a pair.
	BindAddressFlag = "bind-address"
	// AdvertiseAddressFlag is upstream's --advertise-address, which netfork lets take a pair.
	AdvertiseAddressFlag = "advertise-address"
	// serviceCIDRFlag names the service ranges in errors about their families.
	serviceCIDRFlag = "--service-cluster-ip-range"
)

// ServerRunOptions are upstream's kube-apiserver options plus the pairs that
// --bind-address and --advertise-address may hold; the primary address of each
// stays in upstream's field, so upstream's code reads it as before.
type ServerRunOptions struct {
	*upstreamoptions.ServerRunOptions

	// BindAddress and AdvertiseAddress are the wrapped flags, set by Flags.
	BindAddress      *dualstack.AddressFlag
	AdvertiseAddress *dualstack.AddressFlag

	// resolve finds a host address per family; upstream's resolver unless a test replaces it.
	resolve dualstack.Resolver

	// EnableServiceCIDRController is --enable-servicecidr-controller.
	EnableServiceCIDRController bool
}

// NewServerRunOptions returns upstream's defaults. Their component registry
// must hold netfork's features.Gate as the kube component's gate: the command
// calls RegisterFeatureGate first, tests build a registry with features.NewRegistry.
func NewServerRunOptions() *ServerRunOptions {
	return &ServerRunOptions{ServerRunOptions: upstreamoptions.NewServerRunOptions(), EnableServiceCIDRController: true}
}

// RegisterFeatureGate makes netfork's features.Gate, over upstream's
// process-wide gate, the kube component of upstream's default registry, so
// --feature-gates and --emulated-version reach netfork's gates through
// upstream's flag code, and upstream's admission reads the same effective
// version. k8s.io/apiserver registers the kube component with upstream's gate
// when it is loaded, and a registry replaces nothing, so the registry is reset
// first; nothing else is registered in a kube-apiserver by then.
func RegisterFeatureGate() error {
	registry := compatibility.DefaultComponentGlobalsRegistry
	if _, done := registry.FeatureGateFor(basecompatibility.DefaultKubeComponent).(*features.Gate); done {
		return nil
	}
	gate, err := features.NewGate(utilfeature.DefaultMutableFeatureGate)
	if err != nil {
		return err
	}
	registry.Reset()
	return registry.Register(basecompatibility.DefaultKubeComponent, compatibility.DefaultBuildEffectiveVersion(), gate)
}

// Flags returns upstream's flag sets with --bind-address and --advertise-address
// wrapped to take a pair; names, defaults and help stay upstream's plus one sentence.
func (s *ServerRunOptions) Flags() cliflag.NamedFlagSets {
	fss := s.ServerRunOptions.Flags()
	for _, fs := range fss.FlagSets {
		var err error
		if fs.Lookup(BindAddressFlag) != nil {
			s.BindAddress, err = dualstack.WrapAddressFlag(fs, BindAddressFlag)
		}
		if err == nil && fs.Lookup(AdvertiseAddressFlag) != nil {
			s.AdvertiseAddress, err = dualstack.WrapAddressFlag(fs, AdvertiseAddressFlag)
		}
		if err != nil {
			panic(err) // both flags are upstream's and always registered; an error is a programming error
		}
	}
	if s.BindAddress == nil || s.AdvertiseAddress == nil {
		panic(fmt.Sprintf("upstream's flags no longer include --%s and --%s", BindAddressFlag, AdvertiseAddressFlag))
	}
	s.addServiceCIDRControllerFlag(fss.FlagSet("misc"))
	return fss
}

// featureGate is the kube feature gate these options' flags set: netfork's
// features.Gate, registered by NewServerRunOptions or, in tests, by whoever
// built the registry.
func (s *ServerRunOptions) featureGate() (*features.Gate, error) {
	gate, ok := s.GenericServerRunOptions.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent).(*features.Gate)
	if !ok {
		return nil, fmt.Errorf("the kube component's feature gate is not netfork's features.Gate: register one (features.NewGate) before building the options")
	}
	return gate, nil
}

// ValidateAddressFlags returns upstream's flag parse error for a pair in
// --bind-address or --advertise-address while DualStackAPIServer is off. The
// command calls it once the gates are set and before logging starts, where
// upstream reports the same value as it parses the flag.
func (s *ServerRunOptions) ValidateAddressFlags() error {
	gate, err := s.featureGate()
	if err != nil || gate.Enabled(features.DualStackAPIServer) {
		return err
	}
	for _, f := range []*dualstack.AddressFlag{s.BindAddress, s.AdvertiseAddress} {
		if _, err := f.Addresses(false); err != nil {
			return err
		}
	}
	return nil
}
