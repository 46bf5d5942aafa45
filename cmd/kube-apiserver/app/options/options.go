package options

import (
	"fmt"

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

// NewServerRunOptions returns upstream's defaults.
func NewServerRunOptions() *ServerRunOptions {
	return &ServerRunOptions{ServerRunOptions: upstreamoptions.NewServerRunOptions(), EnableServiceCIDRController: true}
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

// dualStackEnabled reads the gate these options' flags set, which is upstream's
// process-wide gate in the binary and a copy of it in in-process tests.
func (s *ServerRunOptions) dualStackEnabled() bool {
	if s.GenericServerRunOptions != nil && s.GenericServerRunOptions.ComponentGlobalsRegistry != nil {
		if gate := s.GenericServerRunOptions.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent); gate != nil {
			return gate.Enabled(features.DualStackAPIServer)
		}
	}
	return features.Enabled(features.DualStackAPIServer)
}
