package options

import (
	"fmt"
	"net"
	"strings"

	netutils "k8s.io/utils/net"
)

// Validate runs upstream's validation, then, when the gate is on, netfork's dual-stack rules.
func (o CompletedOptions) Validate() []error {
	errs := o.CompletedOptions.Validate()
	if o.dualStackEnabled {
		errs = append(errs, o.validateDualStack()...)
	}
	return errs
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
