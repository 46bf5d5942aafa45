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
	"context"
	"net"
	"net/netip"

	"k8s.io/client-go/rest"
)

// Addresses a pod may have; loopback and link-local ones must never count.
var (
	podIPv4      = mustCIDR("10.244.1.5/24")
	podIPv6      = mustCIDR("fd00:10:244::5/64")
	loopbackIPv4 = mustCIDR("127.0.0.1/8")
	loopbackIPv6 = mustCIDR("::1/128")
	linkLocalV6  = mustCIDR("fe80::1/64")
	linkLocalV4  = mustCIDR("169.254.1.1/16")
)

// The kubernetes Service's ClusterIPs and port.
const (
	serviceIPv4 = "10.96.0.1"
	serviceIPv6 = "fd00:10:96::1"
	servicePort = "443"
)

func mustCIDR(s string) net.Addr {
	ip, ipNet, err := net.ParseCIDR(s)
	if err != nil {
		panic(err)
	}
	ipNet.IP = ip
	return ipNet
}

// env fakes os.Getenv with a pod's KUBERNETES_SERVICE_* variables.
func env(host, port string) func(string) string {
	return func(name string) string {
		return map[string]string{"KUBERNETES_SERVICE_HOST": host, "KUBERNETES_SERVICE_PORT": port}[name]
	}
}

// baseConfig is what rest.InClusterConfig returns for host and port.
func baseConfig(host, port string) *rest.Config {
	return &rest.Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		TLSClientConfig: rest.TLSClientConfig{CAFile: "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"},
		BearerToken:     "token",
		BearerTokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token",
	}
}

// fakeResolver answers every lookup with addrs and err and records the queries.
type fakeResolver struct {
	addrs   []netip.Addr
	err     error
	queries []string
}

func (r *fakeResolver) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	r.queries = append(r.queries, network+" "+host)
	return r.addrs, r.err
}
