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
	"net"
	"strings"

	"k8s.io/klog/v2"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/staging-patches/apiserver/pkg/server/options/dualstack"
)

// dualStackPlan is what the flags, the service ranges and the host decided
// before upstream's Complete; empty means upstream's single-stack defaults.
type dualStackPlan struct {
	bind, advertise []net.IP
	autodetected    bool
}

// completeDualStack reads the address pairs now that the gate is known, applies
// KEP-2438's defaults and writes the primary addresses into upstream's fields.
func (s *ServerRunOptions) completeDualStack(enabled bool) (dualStackPlan, error) {
	bind, err := s.BindAddress.Addresses(enabled)
	if err != nil {
		return dualStackPlan{}, err
	}
	advertise, err := s.AdvertiseAddress.Addresses(enabled)
	if err != nil {
		return dualStackPlan{}, err
	}
	if !enabled {
		return dualStackPlan{}, nil
	}

	families := serviceFamilies(s.ServiceClusterIPRanges)
	// a listener handed in by the caller is an explicit bind address, as upstream's ApplyTo treats it
	bindGiven := s.BindAddress.Changed() || s.SecureServing.Listener != nil
	upstreamAdvertise := s.GenericServerRunOptions.AdvertiseAddress
	advertiseGiven := len(advertise) == 2 || (upstreamAdvertise != nil && !upstreamAdvertise.IsUnspecified())

	plan := dualStackPlan{bind: bind, advertise: advertise}
	if !bindGiven && len(families) == 2 {
		switch {
		case len(advertise) == 2:
			plan.bind = unspecifiedFor(families)
		case !advertiseGiven:
			plan = s.autodetect(families)
		}
	}
	// with single-stack service ranges the pair is invalid; validation says so about --bind-address alone
	if len(plan.bind) == 2 && len(families) == 2 && !advertiseGiven && !plan.autodetected {
		plan.advertise = s.advertiseFor(plan.bind, families)
	}

	if len(plan.bind) > 0 {
		s.SecureServing.BindAddress = plan.bind[0]
	}
	if len(plan.advertise) > 0 {
		s.GenericServerRunOptions.AdvertiseAddress = plan.advertise[0]
	}
	return plan, nil
}

// autodetect binds both families and advertises the host's address of each, in
// the order of the service ranges; a host without both stays single-stack.
func (s *ServerRunOptions) autodetect(families []netutils.IPFamily) dualStackPlan {
	bind := unspecifiedFor(families)
	advertise := make([]net.IP, 0, len(bind))
	for _, ip := range bind {
		host, err := dualstack.ResolveForFamily(s.resolve, ip)
		if err != nil {
			klog.Warningf("DualStackAPIServer: --%s and --%s are unset and %s is dual-stack, but %v; serving single-stack",
				BindAddressFlag, AdvertiseAddressFlag, serviceCIDRFlag, err)
			return dualStackPlan{}
		}
		advertise = append(advertise, host)
	}
	return dualStackPlan{bind: bind, advertise: advertise, autodetected: true}
}

// advertiseFor finds an address to advertise for each bound family, in the
// order of the service ranges, since the kubernetes Service's primary
// IP is of that family. A secondary the host lacks is dropped with a warning; a
// primary it lacks is left to upstream's default, which reports it.
func (s *ServerRunOptions) advertiseFor(bind []net.IP, families []netutils.IPFamily) []net.IP {
	var advertise []net.IP
	for i, ip := range orderByFamilies(bind, families) {
		host, err := dualstack.ResolveForFamily(s.resolve, ip)
		if err != nil {
			if i > 0 {
				klog.Warningf("DualStackAPIServer: serving --%s on both families but advertising only %s: %v", BindAddressFlag, advertise[0], err)
			}
			break
		}
		advertise = append(advertise, host)
	}
	return advertise
}

// serviceFamilies are the families of --service-cluster-ip-range in order, or
// nil when it does not parse (upstream's Complete reports that); two ranges of
// one family count as one, and upstream's validation rejects them.
func serviceFamilies(ranges string) []netutils.IPFamily {
	if ranges == "" {
		return nil
	}
	cidrs, err := netutils.ParseCIDRs(strings.Split(ranges, ","))
	if err != nil {
		return nil
	}
	var families []netutils.IPFamily
	for _, c := range cidrs {
		f := netutils.IPFamilyOfCIDR(c)
		if len(families) == 0 || families[0] != f {
			families = append(families, f)
		}
	}
	return families
}

// unspecifiedFor is 0.0.0.0 and :: in the order of families.
func unspecifiedFor(families []netutils.IPFamily) []net.IP {
	ips := make([]net.IP, 0, len(families))
	for _, f := range families {
		ips = append(ips, dualstack.Unspecified(f))
	}
	return ips
}

// orderByFamilies sorts ips like families, leaving them as given when families has only one.
func orderByFamilies(ips []net.IP, families []netutils.IPFamily) []net.IP {
	if len(families) < 2 || len(ips) < 2 || netutils.IPFamilyOf(ips[0]) == families[0] {
		return ips
	}
	return []net.IP{ips[1], ips[0]}
}
