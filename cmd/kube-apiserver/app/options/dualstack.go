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
)

// DualStack is where the apiserver listens and what it advertises, primary
// family first: one address each when single-stack, two when dual-stack. A
// dual bind with a single advertise address serves both families while the
// kubernetes Service stays single-stack. The lease reconciler and the
// kubernetes-Service controller (KEP-2438) read the secondary advertise address
// here; upstream's GenericServerRunOptions.AdvertiseAddress holds the primary.
type DualStack struct {
	BindAddresses      []net.IP
	AdvertiseAddresses []net.IP
}

// SecondaryAdvertiseAddress is the address advertised for the secondary family, or nil when only one is advertised.
func (d DualStack) SecondaryAdvertiseAddress() net.IP {
	if len(d.AdvertiseAddresses) < 2 {
		return nil
	}
	return d.AdvertiseAddresses[1]
}

// ServesBothFamilies tells whether the apiserver listens on one socket per family.
func (d DualStack) ServesBothFamilies() bool { return len(d.BindAddresses) == 2 }

// DualStackEnabled is the DualStackAPIServer gate as these options' flags set it.
func (o CompletedOptions) DualStackEnabled() bool { return o.dualStackEnabled }
