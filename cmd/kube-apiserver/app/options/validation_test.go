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
	"strings"
	"testing"
)

func TestDualStackBadInput(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string // the one error, from Complete or from netfork's validation
	}{
		{name: "gate off, bind pair is upstream's parse error",
			args:    []string{"--bind-address=127.0.0.1,::1", "--service-cluster-ip-range=" + dualIPv4First},
			wantErr: `invalid argument "127.0.0.1,::1" for "--bind-address" flag: failed to parse IP: "127.0.0.1,::1"`},
		{name: "gate off, advertise pair is upstream's parse error",
			args:    []string{"--advertise-address=192.0.2.20,2001:db8::20", "--service-cluster-ip-range=" + dualIPv4First},
			wantErr: `invalid argument "192.0.2.20,2001:db8::20" for "--advertise-address" flag: failed to parse IP: "192.0.2.20,2001:db8::20"`},
		{name: "bind pair of one family",
			args:    []string{gateOn, "--bind-address=0.0.0.0,0.0.0.0", "--service-cluster-ip-range=" + dualIPv4First},
			wantErr: `--bind-address: "0.0.0.0,0.0.0.0" holds two IPv4 addresses; a pair needs one IPv4 and one IPv6 address`},
		{name: "two IPv6 bind addresses",
			args:    []string{gateOn, "--bind-address=::1,fd00::1", "--service-cluster-ip-range=" + dualIPv4First},
			wantErr: `--bind-address: "::1,fd00::1" holds two IPv6 addresses; a pair needs one IPv4 and one IPv6 address`},
		{name: "three bind addresses",
			args:    []string{gateOn, "--bind-address=127.0.0.1,::1,10.0.0.1", "--service-cluster-ip-range=" + dualIPv4First},
			wantErr: `--bind-address: "127.0.0.1,::1,10.0.0.1" has 3 addresses; want one IP or a pair of one IPv4 and one IPv6 address`},
		{name: "hostname in a bind pair",
			args:    []string{gateOn, "--bind-address=localhost,::1", "--service-cluster-ip-range=" + dualIPv4First},
			wantErr: `--bind-address: "localhost" is not an IP address`},
		{name: "hostname in an advertise pair",
			args:    []string{gateOn, "--advertise-address=192.0.2.20,apiserver.example", "--service-cluster-ip-range=" + dualIPv4First},
			wantErr: `--advertise-address: "apiserver.example" is not an IP address`},
		{name: "three advertise addresses",
			args:    []string{gateOn, "--advertise-address=192.0.2.20,2001:db8::20,192.0.2.21", "--service-cluster-ip-range=" + dualIPv4First},
			wantErr: `--advertise-address: "192.0.2.20,2001:db8::20,192.0.2.21" has 3 addresses; want one IP or a pair of one IPv4 and one IPv6 address`},
		{name: "bind pair with a single-stack service range",
			args: []string{gateOn, "--bind-address=127.0.0.1,::1", "--service-cluster-ip-range=" + singleIPv4},
			wantErr: `--bind-address "127.0.0.1,::1" is dual-stack but --service-cluster-ip-range "10.96.0.0/16" is single-stack; ` +
				`give one range per family`},
		{name: "bind pair with the default service range",
			args: []string{gateOn, "--bind-address=127.0.0.1,::1", "--advertise-address=192.0.2.20"},
			wantErr: `--bind-address "127.0.0.1,::1" is dual-stack but --service-cluster-ip-range "10.0.0.0/24" is single-stack; ` +
				`give one range per family`},
		{name: "advertise pair with a single-stack service range",
			args: []string{gateOn, "--advertise-address=192.0.2.20,2001:db8::20", "--service-cluster-ip-range=" + singleIPv4},
			wantErr: `--advertise-address "192.0.2.20,2001:db8::20" is dual-stack but --service-cluster-ip-range "10.96.0.0/16" is single-stack; ` +
				`give one range per family`},
		{name: "advertise address of a family the service ranges lack",
			args: []string{gateOn, "--advertise-address=2001:db8::20", "--endpoint-reconciler-type=none",
				"--service-cluster-ip-range=" + singleIPv4},
			wantErr: `--advertise-address "2001:db8::20" is IPv6 but --service-cluster-ip-range "10.96.0.0/16" has no IPv6 range`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, completed, err := complete(t, host(hostIPv4, hostIPv6), tc.args...)
			if err == nil {
				errs := completed.validateDualStack()
				if len(errs) > 1 {
					t.Fatalf("got %d errors %s, want one line", len(errs), joinErrors(errs))
				}
				if len(errs) == 1 {
					err = errs[0]
				}
			}
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("error = %v, want %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestValidateRunsUpstreamThenNetfork(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		wantNetfork string // "" when netfork adds nothing
		wantSubstr  string // an error Validate must include
	}{
		{name: "netfork's rule after upstream's",
			args:        []string{gateOn, "--bind-address=127.0.0.1,::1", "--service-cluster-ip-range=" + singleIPv4},
			wantNetfork: `--bind-address "127.0.0.1,::1" is dual-stack`,
			wantSubstr:  "--etcd-servers must be specified"},
		{name: "netfork names the flag beside upstream's advertise family check",
			args:        []string{gateOn, "--advertise-address=2001:db8::20", "--endpoint-reconciler-type=lease", "--service-cluster-ip-range=" + singleIPv4},
			wantNetfork: `--advertise-address "2001:db8::20" is IPv6 but --service-cluster-ip-range "10.96.0.0/16" has no IPv6 range`,
			wantSubstr:  `service IP family "10.96.0.0/16" must match public address family "2001:db8::20"`},
		{name: "gate off adds nothing",
			args:       []string{"--advertise-address=2001:db8::20", "--endpoint-reconciler-type=none", "--service-cluster-ip-range=" + singleIPv4},
			wantSubstr: "--etcd-servers must be specified"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, completed, err := complete(t, host(hostIPv4, hostIPv6), tc.args...)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			all := joinErrors(completed.Validate())
			if !strings.Contains(all, tc.wantSubstr) {
				t.Errorf("Validate() = %s, want it to include %q", all, tc.wantSubstr)
			}
			netfork := completed.validateDualStack()
			if !completed.dualStackEnabled {
				netfork = nil
			}
			switch {
			case tc.wantNetfork == "" && len(netfork) != 0:
				t.Errorf("netfork's rules = %s, want none", joinErrors(netfork))
			case tc.wantNetfork != "" && (len(netfork) != 1 || !strings.Contains(all, tc.wantNetfork)):
				t.Errorf("Validate() = %s, want netfork's %q once", all, tc.wantNetfork)
			}
		})
	}
}

// TestBitmapRangeLimit checks that a range too large for a bitmap is refused
// whenever netfork's gates keep one, with upstream's words, and allowed when
// ClusterIPs are IPAddresses only, as upstream allows it.
func TestBitmapRangeLimit(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "IPAddresses only: any size",
			args: []string{"--service-cluster-ip-range=10.0.0.0/8,fd00::/64"}},
		{name: "bitmaps only: a /12 fits",
			args: []string{"--feature-gates=MultiCIDRServiceAllocator=false", "--service-cluster-ip-range=10.0.0.0/12"}},
		{name: "bitmaps only: a /8 is refused",
			args:    []string{"--feature-gates=MultiCIDRServiceAllocator=false", "--service-cluster-ip-range=10.0.0.0/8"},
			wantErr: "specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12"},
		{name: "dual-write: a secondary /64 is refused",
			args:    []string{"--feature-gates=DisableAllocatorDualWrite=false", "--service-cluster-ip-range=10.0.0.0/16,fd00::/64"},
			wantErr: "specified --service-cluster-ip-range[1] is too large; for 128-bit addresses, the mask must be >= 108"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, completed, err := complete(t, host(hostIPv4, hostIPv6), tc.args...)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			errs := completed.validateNetfork()
			if tc.wantErr == "" {
				if len(errs) > 0 {
					t.Fatalf("Validate() = %v, want no error", errs)
				}
				return
			}
			if len(errs) != 1 || errs[0].Error() != tc.wantErr {
				t.Fatalf("Validate() = %v, want exactly %q", errs, tc.wantErr)
			}
		})
	}
}
