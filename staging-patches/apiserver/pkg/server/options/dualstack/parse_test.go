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
	"testing"
)

func TestParseAddresses(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		want    []string
		wantErr string
	}{
		{name: "one IPv4", value: "127.0.0.1", want: []string{"127.0.0.1"}},
		{name: "one IPv6", value: "::1", want: []string{"::1"}},
		{name: "IPv4 first", value: "127.0.0.1,::1", want: []string{"127.0.0.1", "::1"}},
		{name: "IPv6 first", value: "::,0.0.0.0", want: []string{"::", "0.0.0.0"}},
		{name: "spaces around the comma", value: "10.0.0.1 , fd00::1", want: []string{"10.0.0.1", "fd00::1"}},
		{name: "two unspecified IPv4", value: "0.0.0.0,0.0.0.0",
			wantErr: `--bind-address: "0.0.0.0,0.0.0.0" holds two IPv4 addresses; a pair needs one IPv4 and one IPv6 address`},
		{name: "two IPv6", value: "::1,fd00::1",
			wantErr: `--bind-address: "::1,fd00::1" holds two IPv6 addresses; a pair needs one IPv4 and one IPv6 address`},
		{name: "IPv4-mapped IPv6 counts as IPv4", value: "10.0.0.1,::ffff:10.0.0.2",
			wantErr: `--bind-address: "10.0.0.1,::ffff:10.0.0.2" holds two IPv4 addresses; a pair needs one IPv4 and one IPv6 address`},
		{name: "three addresses", value: "127.0.0.1,::1,10.0.0.1",
			wantErr: `--bind-address: "127.0.0.1,::1,10.0.0.1" has 3 addresses; want one IP or a pair of one IPv4 and one IPv6 address`},
		{name: "hostname", value: "localhost,::1", wantErr: `--bind-address: "localhost" is not an IP address`},
		{name: "empty secondary", value: "127.0.0.1,", wantErr: `--bind-address: "" is not an IP address`},
		{name: "CIDR", value: "10.0.0.0/8", wantErr: `--bind-address: "10.0.0.0/8" is not an IP address`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseAddresses("bind-address", tc.value)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("ParseAddresses(%q) = %v, %v; want error %q", tc.value, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseAddresses(%q): %v", tc.value, err)
			}
			if want := mustIPs(t, tc.want...); !equalIPs(got, want) {
				t.Errorf("ParseAddresses(%q) = %v, want %v", tc.value, got, want)
			}
		})
	}
}
