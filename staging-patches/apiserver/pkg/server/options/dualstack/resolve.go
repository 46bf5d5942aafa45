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

	utilnet "k8s.io/apimachinery/pkg/util/net"
	netutils "k8s.io/utils/net"
)

// Resolver finds the host address that serves a bind address; upstream's is utilnet.ResolveBindAddress.
type Resolver func(bindAddress net.IP) (net.IP, error)

// ResolveForFamily finds the address to advertise for bind the way upstream finds
// its single one, and insists on bind's family, because upstream falls back to
// the other family when the host has no address of the one asked for.
func ResolveForFamily(resolve Resolver, bind net.IP) (net.IP, error) {
	if resolve == nil {
		resolve = utilnet.ResolveBindAddress
	}
	ip, err := resolve(bind)
	if err != nil {
		return nil, err
	}
	want := netutils.IPFamilyOf(bind)
	if got := netutils.IPFamilyOf(ip); got != want {
		return nil, fmt.Errorf("no IPv%s address on this host for %s (found only %s)", want, bind, ip)
	}
	return ip, nil
}
