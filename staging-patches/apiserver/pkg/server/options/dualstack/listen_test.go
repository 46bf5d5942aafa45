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
	"fmt"
	"net"
	"strconv"
	"testing"
)

func TestListenSecondBindFailureLeavesNothingBound(t *testing.T) {
	requireIPv6Loopback(t)
	tests := []struct {
		name     string
		addrs    []net.IP
		occupied net.IP
	}{
		{name: "IPv6 secondary taken", addrs: []net.IP{ipv4Loopback, ipv6Loopback}, occupied: ipv6Loopback},
		{name: "IPv4 secondary taken", addrs: []net.IP{ipv6Loopback, ipv4Loopback}, occupied: ipv4Loopback},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			taken, err := net.Listen("tcp", net.JoinHostPort(tc.occupied.String(), "0"))
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = taken.Close() }()
			port := portOf(taken)
			target := net.JoinHostPort(tc.occupied.String(), strconv.Itoa(port))

			ln, err := Listen(context.Background(), tc.addrs, port, ListenOptions{})
			if err == nil {
				_ = ln.Close()
				t.Fatalf("Listen(%v, %d) succeeded with %s taken", tc.addrs, port, target)
			}
			if want := fmt.Sprintf("listen tcp %s: bind: address already in use", target); err.Error() != want {
				t.Errorf("error = %q, want %q", err, want)
			}
			primary := net.JoinHostPort(tc.addrs[0].String(), strconv.Itoa(port))
			again, err := net.Listen("tcp", primary)
			if err != nil {
				t.Fatalf("primary %s left bound after the failed Listen: %v", primary, err)
			}
			_ = again.Close()
		})
	}
}

func TestListenPortZeroSharesOnePort(t *testing.T) {
	requireIPv6Loopback(t)
	for i := 0; i < 5; i++ {
		ln, err := Listen(context.Background(), []net.IP{ipv4Loopback, ipv6Loopback}, 0, ListenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		addrs := ln.Addrs()
		_ = ln.Close()
		if p4, p6 := addrs[0].(*net.TCPAddr).Port, addrs[1].(*net.TCPAddr).Port; p4 != p6 || p4 == 0 {
			t.Fatalf("ports %d and %d, want one shared port", p4, p6)
		}
	}
}

func TestListenPermitPortSharing(t *testing.T) {
	tests := []struct {
		name    string
		opts    ListenOptions
		wantErr bool
	}{
		{name: "SO_REUSEPORT lets a second socket bind", opts: ListenOptions{PermitPortSharing: true}},
		{name: "without it the second bind fails", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first, err := Listen(context.Background(), []net.IP{ipv4Loopback}, 0, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = first.Close() }()
			second, err := Listen(context.Background(), []net.IP{ipv4Loopback}, portOf(first), tc.opts)
			if (err != nil) != tc.wantErr {
				t.Fatalf("second Listen error = %v, want error %t", err, tc.wantErr)
			}
			if second != nil {
				_ = second.Close()
			}
		})
	}
}

func TestListenNetwork(t *testing.T) {
	tests := []struct {
		ip   string
		want string
	}{
		{ip: "0.0.0.0", want: "tcp4"},
		{ip: "::", want: "tcp6"},
		{ip: "127.0.0.1", want: "tcp"},
		{ip: "::1", want: "tcp"},
		{ip: "fd00::1", want: "tcp"},
	}
	for _, tc := range tests {
		t.Run(tc.ip, func(t *testing.T) {
			if got := network(net.ParseIP(tc.ip)); got != tc.want {
				t.Errorf("network(%s) = %s, want %s", tc.ip, got, tc.want)
			}
		})
	}
}

func TestListenNoAddress(t *testing.T) {
	if ln, err := Listen(context.Background(), nil, 0, ListenOptions{}); err == nil {
		_ = ln.Close()
		t.Fatal("Listen with no address succeeded")
	}
}
