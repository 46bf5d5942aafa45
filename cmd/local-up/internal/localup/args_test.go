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

package localup

import (
	"slices"
	"strings"
	"testing"

	"github.com/netfork/netfork/internal/pki"
)

func TestAPIServerArgsDefaultsThenUserArgs(t *testing.T) {
	l := newLayout("/data")
	p := pki.PathsIn("/data/pki")
	user := []string{"--secure-port=7443", "--feature-gates=MultiCIDRServiceAllocator=false"}
	args := apiserverArgs(2, 6443, "http://127.0.0.1:2379", l, p, user)

	defaults := defaultArgs(2, 6443, "http://127.0.0.1:2379", l, p)
	if !slices.Equal(args[:len(defaults)], defaults) || !slices.Equal(args[len(defaults):], user) {
		t.Fatalf("args = %q, want defaults then %q", args, user)
	}
	for _, want := range []string{
		"--bind-address=127.0.0.3",
		"--advertise-address=198.18.0.3",
		"--secure-port=6443",
		"--etcd-servers=http://127.0.0.1:2379",
		"--service-cluster-ip-range=10.96.0.0/16,fd00:10:96::/108",
		"--service-node-port-range=30000-32767",
		"--authorization-mode=Node,RBAC",
		"--allow-privileged=true",
		"--client-ca-file=/data/pki/ca.crt",
		"--tls-cert-file=/data/pki/apiserver.crt",
		"--tls-private-key-file=/data/pki/apiserver.key",
		"--service-account-key-file=/data/pki/sa.pub",
		"--service-account-signing-key-file=/data/pki/sa.key",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--cert-dir=/data/apiserver-certs",
	} {
		if !slices.Contains(defaults, want) {
			t.Errorf("defaults lack %s", want)
		}
	}
	for _, unwanted := range []string{"--enable-priority-and-fairness"} {
		for _, arg := range defaults {
			if strings.HasPrefix(arg, unwanted) {
				t.Errorf("defaults set %s; upstream's default is wanted", arg)
			}
		}
	}
	if port, _ := flagValue(args, "secure-port"); port != "7443" {
		t.Errorf("effective --secure-port = %s, want the user's 7443", port)
	}
}

func TestFlagValue(t *testing.T) {
	tests := []struct {
		args      []string
		want      string
		wantFound bool
	}{
		{args: nil, wantFound: false},
		{args: []string{"--secure-port=1"}, want: "1", wantFound: true},
		{args: []string{"--secure-port", "2"}, want: "2", wantFound: true},
		{args: []string{"--secure-port=1", "--secure-port", "2", "--secure-port=3"}, want: "3", wantFound: true},
		{args: []string{"--secure-port-x=1"}, wantFound: false},
		{args: []string{"--secure-port=1", "--", "--secure-port=9"}, want: "1", wantFound: true},
	}
	for _, tc := range tests {
		got, found := flagValue(tc.args, "secure-port")
		if got != tc.want || found != tc.wantFound {
			t.Errorf("flagValue(%q) = %q, %v, want %q, %v", tc.args, got, found, tc.want, tc.wantFound)
		}
	}
}

func TestEndpoint(t *testing.T) {
	tests := []struct {
		args    []string
		want    string
		wantErr bool
	}{
		{args: []string{"--bind-address=127.0.0.2", "--secure-port=6443"}, want: "127.0.0.2:6443"},
		{args: []string{"--bind-address=127.0.0.2", "--secure-port=6443", "--bind-address=0.0.0.0"}, want: "127.0.0.1:6443"},
		{args: []string{"--bind-address=::", "--secure-port=6443"}, want: "[::1]:6443"},
		{args: []string{"--bind-address=localhost", "--secure-port=6443"}, wantErr: true},
		{args: []string{"--bind-address=127.0.0.2,::1", "--secure-port=6443"}, want: "127.0.0.2:6443"},
		{args: []string{"--bind-address=0.0.0.0,::", "--secure-port=6443"}, want: "127.0.0.1:6443"},
		{args: []string{"--bind-address=::1,127.0.0.1", "--secure-port=6443"}, want: "[::1]:6443"},
		{args: []string{"--bind-address=127.0.0.1,::1,::2", "--secure-port=6443"}, wantErr: true},
		{args: []string{"--bind-address=127.0.0.1,", "--secure-port=6443"}, wantErr: true},
		{args: []string{"--bind-address=127.0.0.1", "--secure-port=0"}, wantErr: true},
	}
	for _, tc := range tests {
		got, err := endpoint(tc.args)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("endpoint(%q) = %q, %v, want %q (error %v)", tc.args, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestServiceIPs(t *testing.T) {
	got := serviceIPs([]string{"--service-cluster-ip-range=10.96.0.0/16, fd00:10:96::/108,bogus"})
	var s []string
	for _, ip := range got {
		s = append(s, ip.String())
	}
	if want := []string{"10.96.0.1", "fd00:10:96::1"}; !slices.Equal(s, want) {
		t.Fatalf("serviceIPs = %v, want %v", s, want)
	}
}

func TestDefaultAdvertiseAddress(t *testing.T) {
	l := newLayout("/data")
	p := pki.PathsIn("/data/pki")
	tests := []struct {
		name string
		user []string
		want string
	}{
		{name: "gate off", user: nil, want: "198.18.0.2"},
		{name: "gate on, dual ranges", user: []string{"--feature-gates=DualStackAPIServer=true"}, want: "198.18.0.2,fd6e:6574:6c75::2"},
		{name: "gate on in a later flag", user: []string{"--feature-gates=DualStackAPIServer=false", "--feature-gates=MultiCIDRServiceAllocator=true, DualStackAPIServer=true"}, want: "198.18.0.2,fd6e:6574:6c75::2"},
		{name: "gate turned off again", user: []string{"--feature-gates=DualStackAPIServer=true,DualStackAPIServer=false"}, want: "198.18.0.2"},
		{name: "gate on, single range", user: []string{"--feature-gates=DualStackAPIServer=true", "--service-cluster-ip-range=10.0.0.0/24"}, want: "198.18.0.2"},
		{name: "gate on, IPv6 primary", user: []string{"--feature-gates=DualStackAPIServer=true", "--service-cluster-ip-range=fd00:1::/108,10.0.0.0/24"}, want: "fd6e:6574:6c75::2,198.18.0.2"},
		{name: "gate off, IPv6 only", user: []string{"--service-cluster-ip-range=fd00:10:96::/64"}, want: "fd6e:6574:6c75::2"},
		{name: "gate off, IPv6 primary", user: []string{"--service-cluster-ip-range=fd00:1::/108,10.0.0.0/24"}, want: "fd6e:6574:6c75::2"},
		{name: "gate on, IPv6 only", user: []string{"--feature-gates=DualStackAPIServer=true", "--service-cluster-ip-range=fd00:10:96::/64"}, want: "fd6e:6574:6c75::2"},
		{name: "user's own address wins", user: []string{"--service-cluster-ip-range=fd00:10:96::/64", "--advertise-address=fd00:1::5"}, want: "fd00:1::5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := apiserverArgs(1, 6443, "http://127.0.0.1:2379", l, p, tc.user)
			if got, _ := flagValue(args, "advertise-address"); got != tc.want {
				t.Fatalf("--advertise-address = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestGateEnabled(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{args: nil, want: false},
		{args: []string{"--feature-gates=DualStackAPIServer=true"}, want: true},
		{args: []string{"--feature-gates", "kube:DualStackAPIServer=True"}, want: true},
		{args: []string{"--feature-gates=DualStackAPIServerX=true"}, want: false},
		{args: []string{"--feature-gates=DualStackAPIServer=maybe"}, want: false},
	}
	for _, tc := range tests {
		if got := gateEnabled(tc.args, dualStackGate); got != tc.want {
			t.Errorf("gateEnabled(%q) = %t, want %t", tc.args, got, tc.want)
		}
	}
}
