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
	"strconv"
	"syscall"

	netutils "k8s.io/utils/net"
)

// portAttempts bounds how often Listen looks for a port 0 that every address has free.
const portAttempts = 8

// ListenOptions are the socket options of upstream's SecureServingOptions that Listen honors.
type ListenOptions struct {
	// PermitPortSharing sets SO_REUSEPORT, as --permit-port-sharing does.
	PermitPortSharing bool
	// PermitAddressSharing sets SO_REUSEADDR, as --permit-address-sharing does.
	PermitAddressSharing bool
}

// Listen binds port on every address and merges the sockets, primary first.
// If one bind fails it closes the sockets it made and returns that bind's
// error, so nothing is left bound. Port 0 picks one port free on every address.
func Listen(ctx context.Context, addrs []net.IP, port int, opts ListenOptions) (*Listener, error) {
	if len(addrs) == 0 {
		return nil, errors.New("no address to listen on")
	}
	lc := net.ListenConfig{Control: socketControl(opts)}
	for attempt := 1; ; attempt++ {
		sockets, err := listenAll(ctx, lc, addrs, port)
		if err == nil {
			return Merge(sockets...), nil
		}
		if port != 0 || attempt == portAttempts || !errors.Is(err, syscall.EADDRINUSE) {
			return nil, err
		}
	}
}

// listenAll binds each address on the port the first one got, closing them all on error.
func listenAll(ctx context.Context, lc net.ListenConfig, addrs []net.IP, port int) ([]net.Listener, error) {
	sockets := make([]net.Listener, 0, len(addrs))
	for _, ip := range addrs {
		s, err := lc.Listen(ctx, network(ip), net.JoinHostPort(ip.String(), strconv.Itoa(port)))
		if err != nil {
			for _, made := range sockets {
				_ = made.Close()
			}
			return nil, err
		}
		sockets = append(sockets, s)
		if port == 0 {
			port = s.Addr().(*net.TCPAddr).Port
		}
	}
	return sockets, nil
}

// network is "tcp" as upstream binds, except for an unspecified address: on
// "tcp" Go binds 0.0.0.0 as an IPv6 socket that takes IPv4 too, which would
// collide with ::, so each family gets its own (:: with IPV6_V6ONLY, as Go sets for tcp6).
func network(ip net.IP) string {
	if !ip.IsUnspecified() {
		return "tcp"
	}
	if netutils.IsIPv6(ip) {
		return "tcp6"
	}
	return "tcp4"
}
