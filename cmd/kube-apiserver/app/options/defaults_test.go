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
	"testing"

	"github.com/netfork/netfork/staging-patches/apiserver/pkg/server/options/dualstack"
)

func TestCompleteDualStack(t *testing.T) {
	bothFamilies := host(hostIPv4, hostIPv6)
	tests := []struct {
		name    string
		args    []string
		resolve dualstack.Resolver // the host; both families unless set

		wantBind              []string // DualStack.BindAddresses; "*" is any one address
		wantAdvertise         []string // DualStack.AdvertiseAddresses
		wantUpstreamBind      string   // SecureServing.BindAddress
		wantUpstreamAdvertise string   // GenericServerRunOptions.AdvertiseAddress; "" when host-dependent
		wantAutodetected      bool
	}{
		// gate off: upstream's behavior
		{name: "gate off, one bind address",
			args:     []string{"--bind-address=127.0.0.1", "--advertise-address=192.0.2.20", "--service-cluster-ip-range=" + dualIPv4First},
			wantBind: []string{"127.0.0.1"}, wantAdvertise: []string{"192.0.2.20"},
			wantUpstreamBind: "127.0.0.1", wantUpstreamAdvertise: "192.0.2.20"},
		{name: "gate off, nothing set with dual service ranges stays single-stack",
			args:     []string{"--service-cluster-ip-range=" + dualIPv4First},
			wantBind: []string{"0.0.0.0"}, wantAdvertise: []string{"*"}, wantUpstreamBind: "0.0.0.0"},

		// explicit bind pair
		{name: "bind pair, advertise found per family",
			args:     []string{gateOn, "--bind-address=127.0.0.1,::1", "--service-cluster-ip-range=" + dualIPv4First},
			wantBind: []string{"127.0.0.1", "::1"}, wantAdvertise: []string{hostIPv4, hostIPv6},
			wantUpstreamBind: "127.0.0.1", wantUpstreamAdvertise: hostIPv4},
		{name: "gate given after the pair on the command line",
			args:     []string{"--bind-address=127.0.0.1,::1", "--service-cluster-ip-range=" + dualIPv4First, gateOn},
			wantBind: []string{"127.0.0.1", "::1"}, wantAdvertise: []string{hostIPv4, hostIPv6},
			wantUpstreamBind: "127.0.0.1", wantUpstreamAdvertise: hostIPv4},
		{name: "bind pair IPv6 first, advertise follows the service ranges",
			args:     []string{gateOn, "--bind-address=::1,127.0.0.1", "--service-cluster-ip-range=" + dualIPv4First},
			wantBind: []string{"::1", "127.0.0.1"}, wantAdvertise: []string{hostIPv4, hostIPv6},
			wantUpstreamBind: "::1", wantUpstreamAdvertise: hostIPv4},
		{name: "bind pair of specific addresses advertises them",
			args:     []string{gateOn, "--bind-address=192.0.2.30,2001:db8::30", "--service-cluster-ip-range=" + dualIPv6First},
			wantBind: []string{"192.0.2.30", "2001:db8::30"}, wantAdvertise: []string{"2001:db8::30", "192.0.2.30"},
			wantUpstreamBind: "192.0.2.30", wantUpstreamAdvertise: "2001:db8::30"},
		{name: "bind pair on a host without IPv6 advertises IPv4 only",
			args:     []string{gateOn, "--bind-address=127.0.0.1,::1", "--service-cluster-ip-range=" + dualIPv4First},
			resolve:  host(hostIPv4, ""),
			wantBind: []string{"127.0.0.1", "::1"}, wantAdvertise: []string{hostIPv4},
			wantUpstreamBind: "127.0.0.1", wantUpstreamAdvertise: hostIPv4},
		{name: "bind pair with a single advertise address serves both, advertises one",
			args:     []string{gateOn, "--bind-address=127.0.0.1,::1", "--advertise-address=192.0.2.20", "--service-cluster-ip-range=" + dualIPv4First},
			wantBind: []string{"127.0.0.1", "::1"}, wantAdvertise: []string{"192.0.2.20"},
			wantUpstreamBind: "127.0.0.1", wantUpstreamAdvertise: "192.0.2.20"},
		{name: "bind pair and advertise pair",
			args: []string{gateOn, "--bind-address=127.0.0.1,::1", "--advertise-address=192.0.2.20,2001:db8::20",
				"--service-cluster-ip-range=" + dualIPv4First},
			wantBind: []string{"127.0.0.1", "::1"}, wantAdvertise: []string{"192.0.2.20", "2001:db8::20"},
			wantUpstreamBind: "127.0.0.1", wantUpstreamAdvertise: "192.0.2.20"},

		// advertise pair without bind
		{name: "advertise pair defaults bind to 0.0.0.0,::",
			args:     []string{gateOn, "--advertise-address=192.0.2.20,2001:db8::20", "--service-cluster-ip-range=" + dualIPv4First},
			wantBind: []string{"0.0.0.0", "::"}, wantAdvertise: []string{"192.0.2.20", "2001:db8::20"},
			wantUpstreamBind: "0.0.0.0", wantUpstreamAdvertise: "192.0.2.20"},
		{name: "advertise pair defaults bind to ::,0.0.0.0 with IPv6-first service ranges",
			args:     []string{gateOn, "--advertise-address=2001:db8::20,192.0.2.20", "--service-cluster-ip-range=" + dualIPv6First},
			wantBind: []string{"::", "0.0.0.0"}, wantAdvertise: []string{"2001:db8::20", "192.0.2.20"},
			wantUpstreamBind: "::", wantUpstreamAdvertise: "2001:db8::20"},
		{name: "single bind address with an advertise pair",
			args:     []string{gateOn, "--bind-address=127.0.0.1", "--advertise-address=192.0.2.20,2001:db8::20", "--service-cluster-ip-range=" + dualIPv4First},
			wantBind: []string{"127.0.0.1"}, wantAdvertise: []string{"192.0.2.20", "2001:db8::20"},
			wantUpstreamBind: "127.0.0.1", wantUpstreamAdvertise: "192.0.2.20"},

		// nothing set: autodetection
		{name: "nothing set, dual service ranges, host with both families",
			args:     []string{gateOn, "--service-cluster-ip-range=" + dualIPv4First},
			wantBind: []string{"0.0.0.0", "::"}, wantAdvertise: []string{hostIPv4, hostIPv6},
			wantUpstreamBind: "0.0.0.0", wantUpstreamAdvertise: hostIPv4, wantAutodetected: true},
		{name: "nothing set, IPv6-first service ranges",
			args:     []string{gateOn, "--service-cluster-ip-range=" + dualIPv6First},
			wantBind: []string{"::", "0.0.0.0"}, wantAdvertise: []string{hostIPv6, hostIPv4},
			wantUpstreamBind: "::", wantUpstreamAdvertise: hostIPv6, wantAutodetected: true},
		{name: "nothing set, host without IPv6 stays single-stack",
			args:     []string{gateOn, "--service-cluster-ip-range=" + dualIPv4First},
			resolve:  host(hostIPv4, ""),
			wantBind: []string{"0.0.0.0"}, wantAdvertise: []string{"*"}, wantUpstreamBind: "0.0.0.0"},
		{name: "nothing set, host without IPv4 stays single-stack",
			args:     []string{gateOn, "--service-cluster-ip-range=" + dualIPv6First},
			resolve:  host("", hostIPv6),
			wantBind: []string{"0.0.0.0"}, wantAdvertise: []string{"*"}, wantUpstreamBind: "0.0.0.0"},
		{name: "nothing set, single service range stays single-stack",
			args:     []string{gateOn, "--service-cluster-ip-range=" + singleIPv4},
			wantBind: []string{"0.0.0.0"}, wantAdvertise: []string{"*"}, wantUpstreamBind: "0.0.0.0"},
		{name: "explicit single bind address stays single-stack",
			args:     []string{gateOn, "--bind-address=0.0.0.0", "--service-cluster-ip-range=" + dualIPv4First},
			wantBind: []string{"0.0.0.0"}, wantAdvertise: []string{"*"}, wantUpstreamBind: "0.0.0.0"},
		{name: "explicit single advertise address stays single-stack",
			args:     []string{gateOn, "--advertise-address=192.0.2.20", "--service-cluster-ip-range=" + dualIPv4First},
			wantBind: []string{"0.0.0.0"}, wantAdvertise: []string{"192.0.2.20"},
			wantUpstreamBind: "0.0.0.0", wantUpstreamAdvertise: "192.0.2.20"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resolve := tc.resolve
			if resolve == nil {
				resolve = bothFamilies
			}
			s, completed, err := complete(t, resolve, tc.args...)
			if upstreamCannotResolve(err) {
				t.Skipf("skipping: upstream's default advertise address needs a host address here: %v", err)
			}
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if errs := completed.validateDualStack(); len(errs) != 0 {
				t.Errorf("dual-stack validation: %s", joinErrors(errs))
			}
			got := completed.DualStack
			if !sameAddresses(got.BindAddresses, tc.wantBind) {
				t.Errorf("BindAddresses = %v, want %v", got.BindAddresses, tc.wantBind)
			}
			if !sameAddresses(got.AdvertiseAddresses, tc.wantAdvertise) {
				t.Errorf("AdvertiseAddresses = %v, want %v", got.AdvertiseAddresses, tc.wantAdvertise)
			}
			if b := s.SecureServing.BindAddress.String(); b != tc.wantUpstreamBind {
				t.Errorf("upstream's bind address = %s, want %s", b, tc.wantUpstreamBind)
			}
			if a := completed.GenericServerRunOptions.AdvertiseAddress; tc.wantUpstreamAdvertise != "" && a.String() != tc.wantUpstreamAdvertise {
				t.Errorf("upstream's advertise address = %s, want %s", a, tc.wantUpstreamAdvertise)
			}
			if !got.AdvertiseAddresses[0].Equal(completed.GenericServerRunOptions.AdvertiseAddress) {
				t.Errorf("primary advertise address %s is not upstream's %s", got.AdvertiseAddresses[0], completed.GenericServerRunOptions.AdvertiseAddress)
			}
			if completed.autodetected != tc.wantAutodetected {
				t.Errorf("autodetected = %t, want %t", completed.autodetected, tc.wantAutodetected)
			}
			if want := len(tc.wantAdvertise) == 2; (got.SecondaryAdvertiseAddress() != nil) != want {
				t.Errorf("SecondaryAdvertiseAddress() = %v, want one: %t", got.SecondaryAdvertiseAddress(), want)
			}
		})
	}
}
