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

package dualstack

import (
	"fmt"
	"net"
	"strings"

	netutils "k8s.io/utils/net"
)

// ParseAddresses reads one IP, or a comma-separated pair of IPs of different
// families with the primary first; every error is one line naming flag.
func ParseAddresses(flag, value string) ([]net.IP, error) {
	parts := strings.Split(value, ",")
	if len(parts) > 2 {
		return nil, fmt.Errorf("--%s: %q has %d addresses; want one IP or a pair of one IPv4 and one IPv6 address", flag, value, len(parts))
	}
	ips := make([]net.IP, 0, len(parts))
	for _, part := range parts {
		ip := net.ParseIP(strings.TrimSpace(part))
		if ip == nil {
			return nil, fmt.Errorf("--%s: %q is not an IP address", flag, strings.TrimSpace(part))
		}
		ips = append(ips, ip)
	}
	if len(ips) == 2 && netutils.IPFamilyOf(ips[0]) == netutils.IPFamilyOf(ips[1]) {
		return nil, fmt.Errorf("--%s: %q holds two IPv%s addresses; a pair needs one IPv4 and one IPv6 address", flag, value, netutils.IPFamilyOf(ips[0]))
	}
	return ips, nil
}

// Unspecified is the any-address of family, 0.0.0.0 or ::, that a dual-stack bind defaults to.
func Unspecified(family netutils.IPFamily) net.IP {
	if family == netutils.IPv6 {
		return net.IPv6unspecified
	}
	return net.IPv4zero
}
