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

package reconcilers

import (
	"net"
	"sort"

	corev1 "k8s.io/api/core/v1"
	netutils "k8s.io/utils/net"
)

// Shape is how the kubernetes Service and its endpoints are written.
type Shape string

const (
	// ShapeUpstream is upstream's single-stack shape, written when some live
	// apiserver publishes no address lease, so both kinds write the same objects.
	ShapeUpstream Shape = "Upstream"
	// ShapeSingleStack is upstream's shape plus terminating conditions: every
	// live apiserver is netfork's, but not every one has both families.
	ShapeSingleStack Shape = "SingleStack"
	// ShapeDualStack is a RequireDualStack Service with one EndpointSlice per
	// family: every live apiserver is netfork's and advertises both families.
	ShapeDualStack Shape = "DualStack"
)

// Member is one live apiserver as the leases describe it.
type Member struct {
	// Primary is the IP of its upstream lease.
	Primary string
	// Secondary is its address of the secondary family, set only in ShapeDualStack.
	Secondary string
	// Terminating is set when it is shutting down, never in ShapeUpstream.
	Terminating bool
}

// Decision is what one reconcile decided from the leases.
type Decision struct {
	Shape Shape
	// Members are the live apiservers, ordered by primary IP as text, the order
	// upstream keeps the Endpoints addresses in.
	Members []Member
}

// DualStack tells whether the Service is to be dual-stack.
func (d Decision) DualStack() bool { return d.Shape == ShapeDualStack }

// Decide picks the shape from the unexpired upstream leases (legacy, one IP per
// live apiserver) and the address leases. An address lease without an upstream
// lease belongs to no live apiserver and is ignored; netfork writes its
// address lease before and removes it after the upstream one, and gives it a
// longer time to live, so a netfork apiserver never looks like upstream's
// while it starts, stops or dies. secondary is the family of this apiserver's
// secondary service range, or "" when its service ranges are single-stack.
func Decide(legacy []string, leases map[string]AddressLease, secondary corev1.IPFamily) Decision {
	primaries := sortedUnique(legacy)
	members := make([]Member, 0, len(primaries))
	shape := ShapeDualStack
	switch {
	case len(primaries) == 0:
		// nobody is live (the last apiserver is leaving): nothing to agree on
		shape = ShapeUpstream
	case secondary == "":
		shape = ShapeSingleStack
	}
	for _, ip := range primaries {
		lease, ok := leases[ip]
		if !ok {
			shape = ShapeUpstream
			members = append(members, Member{Primary: ip})
			continue
		}
		m := Member{Primary: ip, Terminating: lease.Terminating}
		if s, ok := secondaryOf(lease, secondary); ok {
			m.Secondary = s
		} else if shape == ShapeDualStack {
			shape = ShapeSingleStack
		}
		members = append(members, m)
	}
	for i := range members {
		switch shape {
		case ShapeUpstream:
			members[i] = Member{Primary: members[i].Primary}
		case ShapeSingleStack:
			members[i].Secondary = ""
		}
	}
	return Decision{Shape: shape, Members: members}
}

// secondaryOf returns the lease's secondary address when the lease holds
// exactly one address of each family and the second is of family secondary.
func secondaryOf(lease AddressLease, secondary corev1.IPFamily) (string, bool) {
	if secondary == "" || len(lease.Addresses) != 2 {
		return "", false
	}
	if familyOf(lease.Addresses[0]) == secondary || familyOf(lease.Addresses[1]) != secondary {
		return "", false
	}
	return lease.Addresses[1], true
}

// IPFamily is the family of ip, IPv4 unless it is an IPv6 address.
func IPFamily(ip net.IP) corev1.IPFamily {
	if netutils.IsIPv6(ip) {
		return corev1.IPv6Protocol
	}
	return corev1.IPv4Protocol
}

// familyOf is the family of a textual IP, or "" when it is not one.
func familyOf(ip string) corev1.IPFamily {
	switch netutils.IPFamilyOfString(ip) {
	case netutils.IPv4:
		return corev1.IPv4Protocol
	case netutils.IPv6:
		return corev1.IPv6Protocol
	}
	return ""
}

func sortedUnique(ips []string) []string {
	out := make([]string, 0, len(ips))
	seen := make(map[string]bool, len(ips))
	for _, ip := range ips {
		if !seen[ip] {
			seen[ip] = true
			out = append(out, ip)
		}
	}
	sort.Strings(out)
	return out
}
