package localup

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// flagValue returns the value kube-apiserver will use for --name in args: the last
// occurrence, written either --name=value or --name value.
func flagValue(args []string, name string) (string, bool) {
	value, found := "", false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			break
		}
		switch {
		case strings.HasPrefix(arg, "--"+name+"="):
			value, found = strings.TrimPrefix(arg, "--"+name+"="), true
		case arg == "--"+name && i+1 < len(args):
			value, found = args[i+1], true
			i++
		}
	}
	return value, found
}

// endpoint is where an apiserver started with args serves, as a host:port local-up can
// dial: the effective --bind-address (a wildcard means loopback) and --secure-port.
func endpoint(args []string) (string, error) {
	host, _ := flagValue(args, "bind-address")
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return "", fmt.Errorf("--bind-address %q is not an IP address", host)
	case ip.Equal(net.IPv4zero):
		ip = net.IPv4(127, 0, 0, 1)
	case ip.Equal(net.IPv6unspecified):
		ip = net.IPv6loopback
	}
	portValue, _ := flagValue(args, "secure-port")
	port, err := strconv.Atoi(portValue)
	if err != nil || port < 1 || port > 65535 {
		return "", fmt.Errorf("--secure-port %q is not a valid port", portValue)
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(port)), nil
}

// serviceIPs are the kubernetes Service's cluster IPs, the first address of each range in
// the effective --service-cluster-ip-range; ranges that do not parse are left for
// kube-apiserver to report.
func serviceIPs(args []string) []net.IP {
	value, _ := flagValue(args, "service-cluster-ip-range")
	var ips []net.IP
	for _, cidr := range strings.Split(value, ",") {
		_, ipNet, err := net.ParseCIDR(strings.TrimSpace(cidr))
		if err != nil {
			continue
		}
		ip := append(net.IP(nil), ipNet.IP...)
		for j := len(ip) - 1; j >= 0; j-- {
			ip[j]++
			if ip[j] != 0 {
				break
			}
		}
		ips = append(ips, ip)
	}
	return ips
}

// advertiseIP is the effective --advertise-address, if it is an IP.
func advertiseIP(args []string) net.IP {
	value, _ := flagValue(args, "advertise-address")
	return net.ParseIP(value)
}
