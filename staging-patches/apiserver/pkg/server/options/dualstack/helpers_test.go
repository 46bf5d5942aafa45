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
	"net"
	"testing"
)

var (
	ipv4Loopback = net.IPv4(127, 0, 0, 1)
	ipv6Loopback = net.IPv6loopback
)

// ipv6LoopbackError is why ::1 cannot be bound on the host running the test, or nil.
func ipv6LoopbackError() error {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		return err
	}
	return ln.Close()
}

// requireIPv6Loopback skips a test that needs ::1 on a machine where it cannot be bound.
func requireIPv6Loopback(t *testing.T) {
	t.Helper()
	if err := ipv6LoopbackError(); err != nil {
		t.Skipf("skipping: the host has no IPv6 loopback to bind ::1 (%v), so the IPv6 half cannot be exercised", err)
	}
}

// mustIPs parses test addresses.
func mustIPs(t *testing.T, ss ...string) []net.IP {
	t.Helper()
	ips := make([]net.IP, 0, len(ss))
	for _, s := range ss {
		ip := net.ParseIP(s)
		if ip == nil {
			t.Fatalf("bad test IP %q", s)
		}
		ips = append(ips, ip)
	}
	return ips
}

func equalIPs(a, b []net.IP) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

// portOf is the port a listener got.
func portOf(ln net.Listener) int { return ln.Addr().(*net.TCPAddr).Port }
