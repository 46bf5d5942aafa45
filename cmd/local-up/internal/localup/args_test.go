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
	user := []string{"--secure-port=7443", "--feature-gates=DualStackAPIServer=true"}
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
