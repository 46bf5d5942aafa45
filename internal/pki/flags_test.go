package pki

import (
	"slices"
	"testing"
)

func TestAPIServerFlags(t *testing.T) {
	p := PathsIn("/pki")
	got := p.APIServerFlags()
	want := []string{
		"--client-ca-file=/pki/ca.crt",
		"--tls-cert-file=/pki/apiserver.crt",
		"--tls-private-key-file=/pki/apiserver.key",
		"--service-account-key-file=/pki/sa.pub",
		"--service-account-signing-key-file=/pki/sa.key",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
	}
	if !slices.Equal(got, want) {
		t.Errorf("APIServerFlags() = %q, want %q", got, want)
	}
}
