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
	"errors"
	"net"
	"testing"
)

func TestResolveForFamily(t *testing.T) {
	errNoRoute := errors.New("no default route")
	// preferSame answers like upstream's resolver: the bind address's family when the host has it, else the other.
	preferSame := func(v4, v6 string) Resolver {
		return func(bind net.IP) (net.IP, error) {
			if bind.To4() == nil && v6 != "" || v4 == "" {
				return net.ParseIP(v6), nil
			}
			return net.ParseIP(v4), nil
		}
	}
	tests := []struct {
		name    string
		resolve Resolver
		bind    string
		want    string
		wantErr string
	}{
		{name: "IPv4 host address", resolve: preferSame("192.0.2.10", "2001:db8::10"), bind: "0.0.0.0", want: "192.0.2.10"},
		{name: "IPv6 host address", resolve: preferSame("192.0.2.10", "2001:db8::10"), bind: "::", want: "2001:db8::10"},
		{name: "upstream falls back to IPv4", resolve: preferSame("192.0.2.10", ""), bind: "::",
			wantErr: "no IPv6 address on this host for :: (found only 192.0.2.10)"},
		{name: "upstream falls back to IPv6", resolve: preferSame("", "2001:db8::10"), bind: "0.0.0.0",
			wantErr: "no IPv4 address on this host for 0.0.0.0 (found only 2001:db8::10)"},
		{name: "resolver error passes through", bind: "::1",
			resolve: func(net.IP) (net.IP, error) { return nil, errNoRoute }, wantErr: errNoRoute.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveForFamily(tc.resolve, net.ParseIP(tc.bind))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("ResolveForFamily(%s) = %v, %v; want error %q", tc.bind, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || !got.Equal(net.ParseIP(tc.want)) {
				t.Fatalf("ResolveForFamily(%s) = %v, %v; want %s", tc.bind, got, err, tc.want)
			}
		})
	}
}
