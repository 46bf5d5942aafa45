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
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// newFlagSet registers --bind-address the way upstream's SecureServingOptions.AddFlags does.
func newFlagSet(field *net.IP) *pflag.FlagSet {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.IPVar(field, "bind-address", net.IPv4zero, "The IP address on which to listen.")
	return fs
}

// upstreamParseError is what upstream's unwrapped IPVar says about value.
func upstreamParseError(t *testing.T, value string) string {
	t.Helper()
	var field net.IP
	err := newFlagSet(&field).Parse([]string{"--bind-address=" + value})
	if err == nil {
		t.Fatalf("upstream's flag accepted %q", value)
	}
	return err.Error()
}

func TestAddressFlag(t *testing.T) {
	tests := []struct {
		name          string
		args          []string
		dualStack     bool
		wantField     string
		wantAddresses []string
		wantChanged   bool
		wantErr       string
		wantUpstream  bool // the error must be upstream's own parse error
	}{
		{name: "unset keeps upstream's default", wantField: "0.0.0.0"},
		{name: "one address goes to upstream's field", args: []string{"--bind-address=127.0.0.1"}, dualStack: true,
			wantField: "127.0.0.1", wantChanged: true},
		{name: "pair with the gate on", args: []string{"--bind-address=127.0.0.1,::1"}, dualStack: true,
			wantField: "127.0.0.1", wantAddresses: []string{"127.0.0.1", "::1"}, wantChanged: true},
		{name: "later single value replaces a pair", args: []string{"--bind-address=127.0.0.1,::1", "--bind-address=::1"}, dualStack: true,
			wantField: "::1", wantChanged: true},
		{name: "pair with the gate off is upstream's parse error", args: []string{"--bind-address=127.0.0.1,::1"},
			wantErr: "127.0.0.1,::1", wantUpstream: true},
		{name: "bad pair with the gate off is upstream's parse error too", args: []string{"--bind-address=localhost,::1"},
			wantErr: "localhost,::1", wantUpstream: true},
		{name: "bad pair with the gate on names the flag", args: []string{"--bind-address=0.0.0.0,0.0.0.0"}, dualStack: true,
			wantErr: `--bind-address: "0.0.0.0,0.0.0.0" holds two IPv4 addresses; a pair needs one IPv4 and one IPv6 address`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var field net.IP
			fs := newFlagSet(&field)
			v, err := WrapAddressFlag(fs, "bind-address")
			if err != nil {
				t.Fatal(err)
			}
			if err := fs.Parse(tc.args); err != nil {
				t.Fatalf("parsing %v: %v", tc.args, err)
			}
			got, err := v.Addresses(tc.dualStack)
			if tc.wantErr != "" {
				want := tc.wantErr
				if tc.wantUpstream {
					want = upstreamParseError(t, tc.wantErr)
				}
				if err == nil || err.Error() != want {
					t.Fatalf("Addresses(%t) = %v, %v; want error %q", tc.dualStack, got, err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Addresses(%t): %v", tc.dualStack, err)
			}
			if !equalIPs(got, mustIPs(t, tc.wantAddresses...)) {
				t.Errorf("Addresses(%t) = %v, want %v", tc.dualStack, got, tc.wantAddresses)
			}
			if field.String() != tc.wantField {
				t.Errorf("upstream's field = %s, want %s", field, tc.wantField)
			}
			if v.Changed() != tc.wantChanged {
				t.Errorf("Changed() = %t, want %t", v.Changed(), tc.wantChanged)
			}
		})
	}
}

func TestWrapAddressFlagKeepsUpstreamsFlag(t *testing.T) {
	var field net.IP
	fs := newFlagSet(&field)
	before := *fs.Lookup("bind-address")
	v, err := WrapAddressFlag(fs, "bind-address")
	if err != nil {
		t.Fatal(err)
	}
	again, err := WrapAddressFlag(fs, "bind-address")
	if err != nil || again != v {
		t.Fatalf("wrapping twice = %p, %v; want the same value %p", again, err, v)
	}
	after := fs.Lookup("bind-address")
	if after.DefValue != before.DefValue || after.Value.Type() != before.Value.Type() {
		t.Errorf("default %q type %q, want upstream's %q %q", after.DefValue, after.Value.Type(), before.DefValue, before.Value.Type())
	}
	if !strings.HasPrefix(after.Usage, before.Usage) || strings.Count(after.Usage, ".") != strings.Count(before.Usage, ".")+1 {
		t.Errorf("usage %q, want upstream's %q plus one sentence", after.Usage, before.Usage)
	}
	if err := fs.Set("bind-address", "127.0.0.1,::1"); err != nil {
		t.Fatal(err)
	}
	if got := after.Value.String(); got != "127.0.0.1,::1" {
		t.Errorf("String() = %q, want the pair as given", got)
	}
	if _, err := WrapAddressFlag(fs, "advertise-address"); err == nil || err.Error() != "no --advertise-address flag to wrap" {
		t.Errorf("wrapping a missing flag: %v", err)
	}
}
