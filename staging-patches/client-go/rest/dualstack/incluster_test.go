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
	"errors"
	"net"
	"net/netip"
	"reflect"
	"testing"

	"k8s.io/client-go/rest"
)

func TestInClusterConfig(t *testing.T) {
	var (
		v4Only    = []net.Addr{loopbackIPv4, loopbackIPv6, linkLocalV6, podIPv4}
		v6Only    = []net.Addr{loopbackIPv4, loopbackIPv6, linkLocalV4, linkLocalV6, podIPv6}
		dual      = []net.Addr{loopbackIPv4, podIPv4, podIPv6}
		noAddress = []net.Addr{loopbackIPv4, loopbackIPv6, linkLocalV4, linkLocalV6}

		answerV4    = []netip.Addr{netip.MustParseAddr(serviceIPv4)}
		answerV6    = []netip.Addr{netip.MustParseAddr(serviceIPv6)}
		answerBoth  = []netip.Addr{netip.MustParseAddr(serviceIPv6), netip.MustParseAddr(serviceIPv4)}
		answerV4in6 = []netip.Addr{netip.MustParseAddr("::ffff:" + serviceIPv4)}

		errTimeout  = &net.DNSError{Err: "i/o timeout", Name: serviceName, IsTimeout: true}
		errNotFound = &net.DNSError{Err: "no such host", Name: serviceName, IsNotFound: true}
		errListing  = errors.New("netlink: permission denied")
		errToken    = errors.New("open /var/run/secrets/kubernetes.io/serviceaccount/token: no such file or directory")
	)
	const (
		lookupV4 = "ip4 " + serviceName
		lookupV6 = "ip6 " + serviceName
	)
	tests := []struct {
		name      string
		host      string
		port      string
		podAddrs  []net.Addr
		listErr   error
		baseErr   error
		answer    []netip.Addr
		lookupErr error

		// wantHost empty means the base config comes back unchanged.
		wantHost    string
		wantQueries []string
		wantErr     error
		wantErrText string
	}{
		// The pod has the primary family: upstream's config, no lookup.
		{name: "IPv4 pod, IPv4 Service host", host: serviceIPv4, podAddrs: v4Only},
		{name: "IPv6 pod, IPv6 Service host", host: serviceIPv6, podAddrs: v6Only},
		{name: "dual-stack pod, IPv4 Service host", host: serviceIPv4, podAddrs: dual},
		{name: "dual-stack pod, IPv6 Service host", host: serviceIPv6, podAddrs: dual},
		{name: "Service host is a name, not an address", host: "apiserver.example", podAddrs: v6Only},

		// Wrong-single-stack pods: the Service's address of the pod's family.
		{name: "IPv6 pod, IPv4 Service host", host: serviceIPv4, podAddrs: v6Only, answer: answerV6,
			wantHost: "https://[fd00:10:96::1]:443", wantQueries: []string{lookupV6}},
		{name: "IPv4 pod, IPv6 Service host", host: serviceIPv6, podAddrs: v4Only, answer: answerV4,
			wantHost: "https://10.96.0.1:443", wantQueries: []string{lookupV4}},
		{name: "IPv4 pod, resolver answers both families", host: serviceIPv6, podAddrs: v4Only, answer: answerBoth,
			wantHost: "https://10.96.0.1:443", wantQueries: []string{lookupV4}},
		{name: "IPv4 pod, resolver answers IPv4-mapped IPv6", host: serviceIPv6, podAddrs: v4Only, answer: answerV4in6,
			wantHost: "https://10.96.0.1:443", wantQueries: []string{lookupV4}},
		{name: "IPv6 pod keeps the Service port", host: serviceIPv4, port: "6443", podAddrs: v6Only, answer: answerV6,
			wantHost: "https://[fd00:10:96::1]:6443", wantQueries: []string{lookupV6}},

		// Errors.
		{name: "KUBERNETES_SERVICE_HOST unset", host: "", wantErr: rest.ErrNotInCluster},
		{name: "KUBERNETES_SERVICE_PORT unset", host: serviceIPv4, port: "-", wantErr: rest.ErrNotInCluster},
		{name: "upstream's config fails", host: serviceIPv4, podAddrs: v4Only, baseErr: errToken, wantErr: errToken,
			wantErrText: errToken.Error()},
		{name: "pod without any global address, IPv4 Service host", host: serviceIPv4, podAddrs: noAddress, wantErr: ErrNoPodAddress,
			wantErrText: "in-cluster config: KUBERNETES_SERVICE_HOST=10.96.0.1 is unreachable: the pod has no global unicast IPv4 or IPv6 address"},
		{name: "pod without any address, IPv6 Service host", host: serviceIPv6, wantErr: ErrNoPodAddress,
			wantErrText: "in-cluster config: KUBERNETES_SERVICE_HOST=fd00:10:96::1 is unreachable: the pod has no global unicast IPv4 or IPv6 address"},
		{name: "listing the pod's addresses fails", host: serviceIPv4, listErr: errListing, wantErr: errListing,
			wantErrText: "in-cluster config: listing the pod's addresses: netlink: permission denied"},
		{name: "resolver fails", host: serviceIPv4, podAddrs: v6Only, lookupErr: errTimeout, wantQueries: []string{lookupV6}, wantErr: errTimeout,
			wantErrText: "in-cluster config: KUBERNETES_SERVICE_HOST=10.96.0.1 is IPv4 but the pod has IPv6 addresses only: looking up kubernetes.default.svc for IPv6: lookup kubernetes.default.svc: i/o timeout"},
		{name: "single-stack Service: no such host", host: serviceIPv4, podAddrs: v6Only, lookupErr: errNotFound, wantQueries: []string{lookupV6}, wantErr: ErrNoServiceAddress,
			wantErrText: "in-cluster config: KUBERNETES_SERVICE_HOST=10.96.0.1 is IPv4 but the pod has IPv6 addresses only: kubernetes.default.svc has no IPv6 address (lookup kubernetes.default.svc: no such host): the kubernetes Service has no address of the pod's IP family"},
		{name: "single-stack Service: empty answer", host: serviceIPv6, podAddrs: v4Only, wantQueries: []string{lookupV4}, wantErr: ErrNoServiceAddress,
			wantErrText: "in-cluster config: KUBERNETES_SERVICE_HOST=fd00:10:96::1 is IPv6 but the pod has IPv4 addresses only: kubernetes.default.svc has no IPv4 address (it resolves to []): the kubernetes Service has no address of the pod's IP family"},
		{name: "resolver answers the wrong family only", host: serviceIPv4, podAddrs: v6Only, answer: answerV4, wantQueries: []string{lookupV6}, wantErr: ErrNoServiceAddress,
			wantErrText: "in-cluster config: KUBERNETES_SERVICE_HOST=10.96.0.1 is IPv4 but the pod has IPv6 addresses only: kubernetes.default.svc has no IPv6 address (it resolves to [10.96.0.1]): the kubernetes Service has no address of the pod's IP family"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			port := tc.port
			switch port {
			case "":
				port = servicePort
			case "-":
				port = ""
			}
			resolver := &fakeResolver{addrs: tc.answer, err: tc.lookupErr}
			baseCalls := 0
			c := inCluster{
				getenv: env(tc.host, port),
				base: func() (*rest.Config, error) {
					baseCalls++
					if tc.baseErr != nil {
						return nil, tc.baseErr
					}
					return baseConfig(tc.host, port), nil
				},
				podAddrs: func() ([]net.Addr, error) { return tc.podAddrs, tc.listErr },
				resolver: resolver,
			}

			got, err := c.config(context.Background())

			if !reflect.DeepEqual(resolver.queries, tc.wantQueries) {
				t.Errorf("lookups = %q, want %q", resolver.queries, tc.wantQueries)
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("config() = %+v, %v; want an error wrapping %q", got, err, tc.wantErr)
				}
				if tc.wantErrText != "" && err.Error() != tc.wantErrText {
					t.Errorf("error = %q\nwant    %q", err, tc.wantErrText)
				}
				if errors.Is(err, rest.ErrNotInCluster) && baseCalls != 0 {
					t.Errorf("upstream's config was built %d times without the environment", baseCalls)
				}
				return
			}
			if err != nil {
				t.Fatalf("config() error: %v", err)
			}
			want := baseConfig(tc.host, port)
			if tc.wantHost != "" {
				want.Host = tc.wantHost
				want.ServerName = serviceName
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("config() =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// TestInClusterConfigOutsideAPod runs the real seams: without the pod's
// environment it fails exactly as client-go's rest.InClusterConfig does.
func TestInClusterConfigOutsideAPod(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	cfg, err := InClusterConfig()
	if !errors.Is(err, rest.ErrNotInCluster) {
		t.Fatalf("InClusterConfig() = %+v, %v; want rest.ErrNotInCluster", cfg, err)
	}
}
