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
