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
