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
	"testing"
	"time"
)

// acceptTimeout bounds every wait on a socket in these tests.
const acceptTimeout = 10 * time.Second

// acceptResult is one Accept call's outcome, for tests that wait on it.
type acceptResult struct {
	conn net.Conn
	err  error
}

func acceptAsync(ln net.Listener) <-chan acceptResult {
	ch := make(chan acceptResult, 1)
	go func() {
		conn, err := ln.Accept()
		ch <- acceptResult{conn, err}
	}()
	return ch
}

func TestListenerAcceptsOnEveryFamily(t *testing.T) {
	tests := []struct {
		name  string
		addrs []net.IP
		ipv6  bool
	}{
		{name: "IPv4 only", addrs: []net.IP{ipv4Loopback}},
		{name: "IPv4 primary", addrs: []net.IP{ipv4Loopback, ipv6Loopback}, ipv6: true},
		{name: "IPv6 primary", addrs: []net.IP{ipv6Loopback, ipv4Loopback}, ipv6: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ipv6 {
				requireIPv6Loopback(t)
			}
			ln, err := Listen(context.Background(), tc.addrs, 0, ListenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = ln.Close() }()

			if got := ln.Addr().(*net.TCPAddr).IP; !got.Equal(tc.addrs[0]) {
				t.Errorf("Addr() = %v, want the primary %v", ln.Addr(), tc.addrs[0])
			}
			port := portOf(ln)
			for i, a := range ln.Addrs() {
				if tcp := a.(*net.TCPAddr); !tcp.IP.Equal(tc.addrs[i]) || tcp.Port != port {
					t.Errorf("Addrs()[%d] = %v, want %v on the shared port %d", i, a, tc.addrs[i], port)
				}
			}
			for _, ip := range tc.addrs {
				target := net.JoinHostPort(ip.String(), strconv.Itoa(port))
				accepted := acceptAsync(ln)
				client, err := net.DialTimeout("tcp", target, acceptTimeout)
				if err != nil {
					t.Fatalf("dialing %s: %v", target, err)
				}
				select {
				case r := <-accepted:
					if r.err != nil {
						t.Fatalf("Accept for %s: %v", target, r.err)
					}
					if got := r.conn.LocalAddr().String(); got != target {
						t.Errorf("accepted on %s, want %s", got, target)
					}
					if _, ok := r.conn.(*net.TCPConn); !ok {
						t.Errorf("accepted a %T; upstream's keep-alive wrapper wants *net.TCPConn", r.conn)
					}
					_ = r.conn.Close()
				case <-time.After(acceptTimeout):
					t.Fatalf("no connection accepted for %s", target)
				}
				_ = client.Close()
			}
		})
	}
}

func TestListenerCloseUnblocksAccept(t *testing.T) {
	addrs := []net.IP{ipv4Loopback}
	if err := ipv6LoopbackError(); err == nil {
		addrs = append(addrs, ipv6Loopback)
	} else {
		t.Logf("closing only the IPv4 socket: the host has no IPv6 loopback to bind ::1 (%v)", err)
	}
	ln, err := Listen(context.Background(), addrs, 0, ListenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	port := portOf(ln)
	blocked := acceptAsync(ln)
	if err := ln.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case r := <-blocked:
		if !errors.Is(r.err, net.ErrClosed) {
			t.Errorf("Accept after Close = %v, %v; want net.ErrClosed", r.conn, r.err)
		}
	case <-time.After(acceptTimeout):
		t.Fatal("Close did not unblock Accept")
	}
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept on a closed listener = %v, want net.ErrClosed", err)
	}
	if err := ln.Close(); err != nil {
		t.Errorf("second Close = %v, want the first's result", err)
	}
	for _, ip := range addrs {
		again, err := net.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(port)))
		if err != nil {
			t.Errorf("%s:%d still bound after Close: %v", ip, port, err)
			continue
		}
		_ = again.Close()
	}
}

func TestListenerForwardsSocketErrors(t *testing.T) {
	socket, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Merge(socket)
	defer func() { _ = ln.Close() }()
	// closing the socket under the merged listener is an error the server must see
	_ = socket.Close()
	select {
	case r := <-acceptAsync(ln):
		if !errors.Is(r.err, net.ErrClosed) {
			t.Errorf("Accept = %v, %v; want the socket's net.ErrClosed", r.conn, r.err)
		}
	case <-time.After(acceptTimeout):
		t.Fatal("a socket's error did not reach Accept")
	}
}
