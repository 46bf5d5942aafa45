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
	"net"
	"strings"

	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/pkg/features"
)

// maxBitmapCIDRBits is upstream's limit on a range kept in a bitmap (2^20 addresses).
const maxBitmapCIDRBits = 20

// Validate runs upstream's validation, then netfork's checks of what its gates
// change: the bitmap range limit and, with DualStackAPIServer, the dual-stack rules.
func (o CompletedOptions) Validate() []error {
	return append(o.CompletedOptions.Validate(), o.validateNetfork()...)
}

// validateNetfork checks what netfork's gates change.
func (o CompletedOptions) validateNetfork() []error {
	var errs []error
	if features.ClusterIPAllocationOf(o.featureGate).UsesBitmaps() {
		errs = append(errs, o.validateBitmapRanges()...)
	}
	if o.dualStackEnabled {
		errs = append(errs, o.validateDualStack()...)
	}
	return errs
}

// validateBitmapRanges refuses service ranges too large for a bitmap in etcd.
// Upstream's validation does so while its gates allow bitmaps, but it reads
// upstream's gate, which locks them off; the words are upstream's.
func (o CompletedOptions) validateBitmapRanges() []error {
	// upstream-shim begin: k8s.io/kubernetes/cmd/kube-apiserver/app/options/validation.go validateClusterIPFlags
	var errs []error
	for i, cidr := range []net.IPNet{o.PrimaryServiceClusterIPRange, o.SecondaryServiceClusterIPRange} {
		flag := serviceCIDRFlag
		if i > 0 {
			flag += "[1]"
		}
		if ones, bits := cidr.Mask.Size(); cidr.IP != nil && bits-ones > maxBitmapCIDRBits {
			errs = append(errs, fmt.Errorf("specified %s is too large; for %d-bit addresses, the mask must be >= %d", flag, bits, bits-maxBitmapCIDRBits))
		}
	}
	return errs
	// upstream-shim end
}

// validateDualStack checks the per-family addresses against the service ranges,
// one error per flag, each naming it.
func (o CompletedOptions) validateDualStack() []error {
	families := o.serviceFamilies()
	ranges := o.serviceRanges()
	var errs []error
	if len(o.DualStack.BindAddresses) == 2 && len(families) < 2 {
		errs = append(errs, fmt.Errorf("--%s %q is dual-stack but %s %q is single-stack; give one range per family",
			BindAddressFlag, joinIPs(o.DualStack.BindAddresses), serviceCIDRFlag, ranges))
	}
	if len(o.DualStack.AdvertiseAddresses) == 2 && len(families) < 2 {
		errs = append(errs, fmt.Errorf("--%s %q is dual-stack but %s %q is single-stack; give one range per family",
			AdvertiseAddressFlag, joinIPs(o.DualStack.AdvertiseAddresses), serviceCIDRFlag, ranges))
	} else if err := o.validateAdvertiseFamilies(families, ranges); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// validateAdvertiseFamilies insists that every advertised address has a service
// range of its family, since the kubernetes Service publishes it. Upstream
// checks the primary too while an endpoint reconciler runs, but its message
// does not name the flag, so netfork's comes alongside.
func (o CompletedOptions) validateAdvertiseFamilies(families []netutils.IPFamily, ranges string) error {
	for _, ip := range o.DualStack.AdvertiseAddresses {
		if ip == nil {
			continue
		}
		family := netutils.IPFamilyOf(ip)
		if !hasFamily(families, family) {
			return fmt.Errorf("--%s %q is IPv%s but %s %q has no IPv%s range",
				AdvertiseAddressFlag, ip.String(), family, serviceCIDRFlag, ranges, family)
		}
	}
	return nil
}

// serviceFamilies are the families of the completed service ranges, primary first.
func (o CompletedOptions) serviceFamilies() []netutils.IPFamily {
	var families []netutils.IPFamily
	for _, r := range []net.IPNet{o.PrimaryServiceClusterIPRange, o.SecondaryServiceClusterIPRange} {
		if r.IP != nil {
			families = append(families, netutils.IPFamilyOfCIDR(&r))
		}
	}
	if len(families) == 2 && families[0] == families[1] {
		return families[:1]
	}
	return families
}

// serviceRanges are the completed service ranges as the user would write them, defaults included.
func (o CompletedOptions) serviceRanges() string {
	var ranges []string
	for _, r := range []net.IPNet{o.PrimaryServiceClusterIPRange, o.SecondaryServiceClusterIPRange} {
		if r.IP != nil {
			ranges = append(ranges, r.String())
		}
	}
	return strings.Join(ranges, ",")
}

func hasFamily(families []netutils.IPFamily, family netutils.IPFamily) bool {
	for _, f := range families {
		if f == family {
			return true
		}
	}
	return false
}

func joinIPs(ips []net.IP) string {
	s := make([]string, 0, len(ips))
	for _, ip := range ips {
		s = append(s, ip.String())
	}
	return strings.Join(s, ",")
}
