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

package options

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"testing"
)

// requireIPv6Loopback skips a test that needs ::1 on a machine where it cannot be bound.
func requireIPv6Loopback(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Skipf("skipping: the host has no IPv6 loopback to bind ::1 (%v), so the IPv6 half cannot be exercised", err)
	}
	_ = ln.Close()
}

// freePort is a port free on both loopback addresses a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	for i := 0; i < 8; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln6, err := net.Listen("tcp", net.JoinHostPort("::1", strconv.Itoa(port)))
		_ = ln.Close()
		if err == nil {
			_ = ln6.Close()
			return port
		}
	}
	t.Fatal("no port free on both 127.0.0.1 and ::1")
	return 0
}

func TestListen(t *testing.T) {
	requireIPv6Loopback(t)
	tests := []struct {
		name         string
		args         []string
		autodetected bool // pretend the pair came from the host, not the flags
		occupy       string
		wantErr      string // %d is the port
		wantAddrs    []string
		wantBind     []string // DualStack.BindAddresses afterwards
	}{
		{name: "gate off, upstream binds",
			args: []string{"--bind-address=127.0.0.1"}, wantBind: []string{"127.0.0.1"}},
		{name: "single address, upstream binds",
			args: []string{gateOn, "--bind-address=127.0.0.1"}, wantBind: []string{"127.0.0.1"}},
		{name: "pair binds both behind one listener",
			args:      []string{gateOn, "--bind-address=127.0.0.1,::1", "--advertise-address=192.0.2.20"},
			wantAddrs: []string{"127.0.0.1", "::1"}, wantBind: []string{"127.0.0.1", "::1"}},
		{name: "secondary family's port taken",
			args:    []string{gateOn, "--bind-address=127.0.0.1,::1", "--advertise-address=192.0.2.20"},
			occupy:  "::1",
			wantErr: "--bind-address: listen tcp [::1]:%d: bind: address already in use"},
		{name: "primary family's port taken",
			args:    []string{gateOn, "--bind-address=127.0.0.1,::1", "--advertise-address=192.0.2.20"},
			occupy:  "127.0.0.1",
			wantErr: "--bind-address: listen tcp 127.0.0.1:%d: bind: address already in use"},
		{name: "autodetected pair falls back to single-stack",
			args:         []string{gateOn, "--bind-address=127.0.0.1,::1", "--advertise-address=192.0.2.20,2001:db8::20"},
			autodetected: true, occupy: "::1", wantBind: []string{"127.0.0.1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			port := freePort(t)
			args := append([]string{"--service-cluster-ip-range=" + dualIPv4First, "--secure-port=" + strconv.Itoa(port)}, tc.args...)
			_, completed, err := complete(t, host(hostIPv4, hostIPv6), args...)
			if upstreamCannotResolve(err) {
				t.Skipf("skipping: upstream's default advertise address needs a host address here: %v", err)
			}
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			completed.autodetected = tc.autodetected
			if tc.occupy != "" {
				taken, err := net.Listen("tcp", net.JoinHostPort(tc.occupy, strconv.Itoa(port)))
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = taken.Close() }()
			}

			ln, err := completed.Listen(context.Background())
			if ln != nil {
				defer func() { _ = ln.Close() }()
			}
			if tc.wantErr != "" {
				if want := fmt.Sprintf(tc.wantErr, port); err == nil || err.Error() != want {
					t.Fatalf("Listen() = %v, want error %q", err, want)
				}
				if completed.SecureServing.Listener != nil {
					t.Errorf("upstream was handed a listener after a failed bind")
				}
				for _, ip := range []string{"127.0.0.1", "::1"} {
					if ip == tc.occupy {
						continue
					}
					again, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
					if err != nil {
						t.Fatalf("%s:%d left bound after the failed Listen: %v", ip, port, err)
					}
					_ = again.Close()
				}
				return
			}
			if err != nil {
				t.Fatalf("Listen(): %v", err)
			}
			if len(tc.wantAddrs) == 0 {
				if ln != nil || completed.SecureServing.Listener != nil {
					t.Errorf("Listen made a listener; upstream should bind")
				}
			} else {
				if completed.SecureServing.Listener != ln {
					t.Errorf("upstream's SecureServing.Listener is not the merged listener")
				}
				if got := listenerAddresses(ln); !sameAddresses(got, tc.wantAddrs) {
					t.Errorf("listening on %v, want %v", got, tc.wantAddrs)
				}
			}
			if !sameAddresses(completed.DualStack.BindAddresses, tc.wantBind) {
				t.Errorf("BindAddresses = %v, want %v", completed.DualStack.BindAddresses, tc.wantBind)
			}
			if tc.autodetected && completed.DualStack.SecondaryAdvertiseAddress() != nil {
				t.Errorf("fallback still advertises %v", completed.DualStack.SecondaryAdvertiseAddress())
			}
		})
	}
}

func TestCompleteKeepsACallersListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	s, fs := newTestOptions(t, host(hostIPv4, hostIPv6))
	s.SecureServing.Listener = ln
	if err := fs.Parse(append(append([]string{}, noCertFlags...), gateOn, "--service-cluster-ip-range="+dualIPv4First, "--advertise-address=192.0.2.20")); err != nil {
		t.Fatal(err)
	}
	if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
		t.Fatal(err)
	}
	completed, err := s.Complete(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !sameAddresses(completed.DualStack.BindAddresses, []string{"127.0.0.1"}) || completed.autodetected {
		t.Errorf("BindAddresses = %v (autodetected %t), want the caller's listener only", completed.DualStack.BindAddresses, completed.autodetected)
	}
	made, err := completed.Listen(context.Background())
	if err != nil || made != nil {
		t.Errorf("Listen() = %v, %v; want the caller's listener kept", made, err)
	}
}
