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

package main

import (
	"net/netip"
	"reflect"
	"slices"
	"testing"

	"github.com/spf13/pflag"

	"github.com/netfork/netfork/internal/pki"
)

func TestOptionsParse(t *testing.T) {
	const (
		host1 = "--host=nfk-1,198.19.0.1,fd6e:6574:666b::1"
		host2 = "--host=nfk-2,198.19.0.2,fd6e:6574:666b::2"
		bin   = "--apiserver-binary=/bin/kube-apiserver"
	)
	tests := []struct {
		name      string
		args      []string
		wantHosts []host
		wantArgs  []string
		wantErr   string
	}{
		{name: "two hosts and apiserver flags", args: []string{bin, host1, host2, "--", "--v=2"},
			wantHosts: []host{
				{Netns: "nfk-1", IPv4: netip.MustParseAddr("198.19.0.1"), IPv6: netip.MustParseAddr("fd6e:6574:666b::1")},
				{Netns: "nfk-2", IPv4: netip.MustParseAddr("198.19.0.2"), IPv6: netip.MustParseAddr("fd6e:6574:666b::2")},
			},
			wantArgs: []string{"--v=2"}},
		{name: "no binary", args: []string{host1}, wantErr: "--apiserver-binary is required"},
		{name: "no host", args: []string{bin}, wantErr: "--host is required: give one NETNS,IPV4,IPV6 per host"},
		{name: "argument before --", args: []string{bin, host1, "extra"},
			wantErr: `unexpected argument "extra": kube-apiserver flags go after --`},
		{name: "bad port", args: []string{bin, host1, "--port=0"}, wantErr: "--port 0 is not a valid port"},
		{name: "bad ready timeout", args: []string{bin, host1, "--ready-timeout=0s"}, wantErr: "--ready-timeout 0s must be positive"},
		{name: "two fields", args: []string{bin, "--host=nfk-1,198.19.0.1"},
			wantErr: `--host "nfk-1,198.19.0.1": want NETNS,IPV4,IPV6, got 2 comma-separated fields`},
		{name: "namespace is a path", args: []string{bin, "--host=../x,198.19.0.1,fd6e:6574:666b::1"},
			wantErr: `--host "../x,198.19.0.1,fd6e:6574:666b::1": "../x" is not a network namespace name`},
		{name: "IPv4 outside the benchmarking range", args: []string{bin, "--host=nfk-1,192.0.2.1,fd6e:6574:666b::1"},
			wantErr: `--host "nfk-1,192.0.2.1,fd6e:6574:666b::1": "192.0.2.1" is not an IPv4 address in 198.18.0.0/15`},
		{name: "IPv6 where IPv4 belongs", args: []string{bin, "--host=nfk-1,fd6e:6574:666b::1,198.19.0.1"},
			wantErr: `--host "nfk-1,fd6e:6574:666b::1,198.19.0.1": "fd6e:6574:666b::1" is not an IPv4 address in 198.18.0.0/15`},
		{name: "global IPv6", args: []string{bin, "--host=nfk-1,198.19.0.1,2001:db8::1"},
			wantErr: `--host "nfk-1,198.19.0.1,2001:db8::1": "2001:db8::1" is not an IPv6 unique local address (fc00::/7)`},
		{name: "hostname", args: []string{bin, "--host=nfk-1,host.example,fd6e:6574:666b::1"},
			wantErr: `--host "nfk-1,host.example,fd6e:6574:666b::1": "host.example" is not an IPv4 address in 198.18.0.0/15`},
		{name: "namespace twice", args: []string{bin, host1, "--host=nfk-1,198.19.0.2,fd6e:6574:666b::2"},
			wantErr: `--host "nfk-1,198.19.0.2,fd6e:6574:666b::2": nfk-1 is already used by --host "nfk-1,198.19.0.1,fd6e:6574:666b::1"`},
		{name: "address twice", args: []string{bin, host1, "--host=nfk-2,198.19.0.2,fd6e:6574:666b::1"},
			wantErr: `--host "nfk-2,198.19.0.2,fd6e:6574:666b::1": fd6e:6574:666b::1 is already used by --host "nfk-1,198.19.0.1,fd6e:6574:666b::1"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := newOptions()
			err := o.parse(pflag.NewFlagSet("test", pflag.ContinueOnError), tc.args)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("parse(%q) error = %v\nwant %s", tc.args, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parse(%q): %v", tc.args, err)
			}
			if !reflect.DeepEqual(o.Hosts, tc.wantHosts) || !reflect.DeepEqual(o.APIServerArgs, tc.wantArgs) {
				t.Errorf("parse(%q) = hosts %v, args %q; want %v, %q", tc.args, o.Hosts, o.APIServerArgs, tc.wantHosts, tc.wantArgs)
			}
		})
	}
}

func TestAPIServerArgs(t *testing.T) {
	o := newOptions()
	if err := o.parse(pflag.NewFlagSet("test", pflag.ContinueOnError), []string{
		"--apiserver-binary=/bin/kube-apiserver", "--host=nfk-1,198.19.0.1,fd6e:6574:666b::1", "--port=7443", "--", "--v=4",
	}); err != nil {
		t.Fatal(err)
	}
	l := newLayout("/data")
	args := apiserverArgs(o, o.Hosts[0], l, pki.PathsIn(l.pkiDir))
	for _, want := range []string{
		"--bind-address=198.19.0.1,fd6e:6574:666b::1",
		"--advertise-address=198.19.0.1,fd6e:6574:666b::1",
		"--secure-port=7443",
		"--feature-gates=DualStackAPIServer=true",
		"--etcd-servers=http://127.0.0.1:2379",
		"--service-cluster-ip-range=10.96.0.0/16,fd00:10:96::/108",
		"--tls-cert-file=/data/pki/apiserver.crt",
	} {
		if !slices.Contains(args, want) {
			t.Errorf("apiserver args %q lack %s", args, want)
		}
	}
	if last := args[len(args)-1]; last != "--v=4" {
		t.Errorf("the user's flags must come last, so they win; last is %s", last)
	}
	if got, want := firstServiceIPs(), []netip.Addr{netip.MustParseAddr("10.96.0.1"), netip.MustParseAddr("fd00:10:96::1")}; !reflect.DeepEqual(got, want) {
		t.Errorf("firstServiceIPs() = %v, want %v", got, want)
	}
}
