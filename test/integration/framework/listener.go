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

package framework

import (
	"context"
	"net"
	"strconv"

	"github.com/netfork/netfork/cmd/kube-apiserver/app/options"
	"github.com/netfork/netfork/staging-patches/apiserver/pkg/server/options/dualstack"
)

// listen hands the apiserver the framework's 127.0.0.1 listener, or with
// fromFlags only picks a port and leaves binding to --bind-address, returning nil.
func listen(s *options.ServerRunOptions, fromFlags bool) (net.Listener, error) {
	if fromFlags {
		port, err := freeDualLoopbackPort()
		s.SecureServing.BindPort = port
		return nil, err
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.SecureServing.Listener = listener
	s.SecureServing.BindPort = listener.Addr().(*net.TCPAddr).Port
	return listener, nil
}

// freeDualLoopbackPort finds a port free on 127.0.0.1 and, where it exists, ::1, by
// binding both and letting go; a test that loses the race fails to start, it never hangs.
func freeDualLoopbackPort() (int, error) {
	addrs := []net.IP{net.IPv4(127, 0, 0, 1)}
	if IPv6LoopbackAvailable() {
		addrs = append(addrs, net.IPv6loopback)
	}
	ln, err := dualstack.Listen(context.Background(), addrs, 0, dualstack.ListenOptions{})
	if err != nil {
		return 0, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	return port, ln.Close()
}

// IPv6LoopbackAvailable tells whether ::1 can be bound here; tests of the IPv6 side skip without it.
func IPv6LoopbackAvailable() bool {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		return false
	}
	_ = ln.Close()
	return true
}

// servingURL is the https URL of the address the apiserver is bound to, which
// upstream's ApplyTo copies from the listener; an unspecified one is reached on loopback.
func servingURL(s *options.ServerRunOptions) string {
	ip := s.SecureServing.BindAddress
	switch {
	case ip == nil || ip.Equal(net.IPv4zero):
		ip = net.IPv4(127, 0, 0, 1)
	case ip.Equal(net.IPv6unspecified):
		ip = net.IPv6loopback
	}
	return "https://" + net.JoinHostPort(ip.String(), strconv.Itoa(s.SecureServing.BindPort))
}
