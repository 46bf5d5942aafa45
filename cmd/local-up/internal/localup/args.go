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
	for _, v := range flagValues(args, name) {
		value, found = v, true
	}
	return value, found
}

// flagValues returns every value given to --name in args, in order.
func flagValues(args []string, name string) []string {
	var values []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			break
		}
		switch {
		case strings.HasPrefix(arg, "--"+name+"="):
			values = append(values, strings.TrimPrefix(arg, "--"+name+"="))
		case arg == "--"+name && i+1 < len(args):
			values = append(values, args[i+1])
			i++
		}
	}
	return values
}

// ipList parses a flag value holding one address or a comma-separated pair.
func ipList(flag, value string) ([]net.IP, error) {
	var ips []net.IP
	for _, part := range strings.Split(value, ",") {
		ip := net.ParseIP(strings.TrimSpace(part))
		if ip == nil {
			return nil, fmt.Errorf("--%s %q is not an IP address or a pair of them", flag, value)
		}
		ips = append(ips, ip)
	}
	if len(ips) > 2 {
		return nil, fmt.Errorf("--%s %q: at most one address per family", flag, value)
	}
	return ips, nil
}

// endpoint is where an apiserver started with args serves, as a host:port local-up can
// dial: the primary address of the effective --bind-address (a wildcard means loopback)
// and --secure-port. A pair such as 127.0.0.1,::1 is kube-apiserver's to check.
func endpoint(args []string) (string, error) {
	value, _ := flagValue(args, "bind-address")
	ips, err := ipList("bind-address", value)
	if err != nil {
		return "", err
	}
	ip := ips[0]
	switch {
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

// bindIPs are the addresses of the effective --bind-address, which the serving cert names.
func bindIPs(args []string) []net.IP {
	value, _ := flagValue(args, "bind-address")
	ips, _ := ipList("bind-address", value) // endpoint reported a bad value already.
	return ips
}

// serviceRanges are the effective --service-cluster-ip-range's CIDRs; ranges that do not
// parse are left for kube-apiserver to report.
func serviceRanges(args []string) []*net.IPNet {
	value, _ := flagValue(args, "service-cluster-ip-range")
	var ranges []*net.IPNet
	for _, cidr := range strings.Split(value, ",") {
		if _, ipNet, err := net.ParseCIDR(strings.TrimSpace(cidr)); err == nil {
			ranges = append(ranges, ipNet)
		}
	}
	return ranges
}

// serviceIPs are the kubernetes Service's cluster IPs, the first address of each range in
// the effective --service-cluster-ip-range.
func serviceIPs(args []string) []net.IP {
	var ips []net.IP
	for _, ipNet := range serviceRanges(args) {
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

// advertiseIPs are the addresses of the effective --advertise-address that parse.
func advertiseIPs(args []string) []net.IP {
	value, _ := flagValue(args, "advertise-address")
	ips, _ := ipList("advertise-address", value) // kube-apiserver reports a bad value.
	return ips
}

// gateEnabled tells whether --feature-gates in args turn gate on: every occurrence is
// merged in order, as kube-apiserver's flag does, and an optional "kube:" style prefix
// is ignored. Values that do not parse are kube-apiserver's to report.
func gateEnabled(args []string, gate string) bool {
	on := false
	for _, value := range flagValues(args, "feature-gates") {
		for _, pair := range strings.Split(value, ",") {
			name, v, found := strings.Cut(strings.TrimSpace(pair), "=")
			if _, unprefixed, ok := strings.Cut(name, ":"); ok {
				name = unprefixed
			}
			if !found || strings.TrimSpace(name) != gate {
				continue
			}
			if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
				on = b
			}
		}
	}
	return on
}
