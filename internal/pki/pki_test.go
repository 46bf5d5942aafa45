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

package pki

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/client-go/util/keyutil"
)

func TestServingCertVerifiesForEverySAN(t *testing.T) {
	sans := testSANs()
	p := mustEnsure(t, t.TempDir(), sans)
	serving := mustCert(t, p.ServingCert)

	hosts := append([]string(nil), sans.DNSNames...)
	for _, ip := range sans.IPs {
		hosts = append(hosts, ip.String())
	}
	for _, host := range hosts {
		t.Run(host, func(t *testing.T) {
			if err := verifyFor(serving, p.CA, host, x509.ExtKeyUsageServerAuth); err != nil {
				t.Errorf("serving cert does not verify for %s: %v", host, err)
			}
		})
	}
	if err := verifyFor(serving, p.CA, "example.com", x509.ExtKeyUsageServerAuth); err == nil {
		t.Errorf("serving cert verifies for a name it was not issued for")
	}
}

func TestAdminCert(t *testing.T) {
	p := mustEnsure(t, t.TempDir(), testSANs())
	admin := mustCert(t, p.AdminCert)
	if err := verifyFor(admin, p.CA, "", x509.ExtKeyUsageClientAuth); err != nil {
		t.Fatalf("admin cert does not verify as a client cert: %v", err)
	}
	if admin.Subject.CommonName != "kubernetes-admin" || !slices.Equal(admin.Subject.Organization, []string{"system:masters"}) {
		t.Fatalf("admin subject = %v, want CN=kubernetes-admin O=system:masters", admin.Subject)
	}
}

func TestServiceAccountKeys(t *testing.T) {
	p := mustEnsure(t, t.TempDir(), testSANs())
	priv, err := keyutil.PrivateKeyFromFile(p.ServiceAccountKey)
	if err != nil {
		t.Fatal(err)
	}
	rsaKey, ok := priv.(*rsa.PrivateKey)
	if !ok {
		t.Fatalf("sa.key holds %T, want an RSA key", priv)
	}
	pubs, err := keyutil.PublicKeysFromFile(p.ServiceAccountPublicKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(pubs) != 1 || !rsaKey.PublicKey.Equal(pubs[0]) {
		t.Fatalf("sa.pub does not hold sa.key's public key")
	}

	if err := os.Remove(p.ServiceAccountPublicKey); err != nil {
		t.Fatal(err)
	}
	mustEnsure(t, filepath.Dir(p.CACert), testSANs())
	if reloaded, _ := keyutil.PrivateKeyFromFile(p.ServiceAccountKey); !rsaKey.Equal(reloaded) {
		t.Fatalf("sa.key changed when only sa.pub was missing")
	}
	if pubs, _ := keyutil.PublicKeysFromFile(p.ServiceAccountPublicKey); len(pubs) != 1 || !rsaKey.PublicKey.Equal(pubs[0]) {
		t.Fatalf("sa.pub was not rewritten from sa.key")
	}
}

func TestReloadKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	first := mustEnsure(t, dir, testSANs())
	paths := PathsIn(dir)
	before := map[string][]byte{}
	for _, f := range []string{paths.CACert, paths.CAKey, paths.ServingCert, paths.ServingKey, paths.AdminCert, paths.AdminKey, paths.ServiceAccountKey, paths.ServiceAccountPublicKey} {
		before[f] = mustRead(t, f)
	}

	second := mustEnsure(t, dir, testSANs())
	if !first.CA.Equal(second.CA) {
		t.Fatalf("reload returned a different CA")
	}
	for f, data := range before {
		if !bytes.Equal(data, mustRead(t, f)) {
			t.Errorf("reload rewrote %s", filepath.Base(f))
		}
	}
}

func TestMissingSANRegeneratesOnlyTheServingCert(t *testing.T) {
	dir := t.TempDir()
	first := mustEnsure(t, dir, testSANs())
	oldServing := mustCert(t, first.ServingCert)
	oldAdmin := mustRead(t, first.AdminCert)

	sans := testSANs()
	sans.IPs = append(sans.IPs, net.ParseIP("127.0.0.3"))
	sans.DNSNames = append(sans.DNSNames, "apiserver.example")
	second := mustEnsure(t, dir, sans)

	if !first.CA.Equal(second.CA) {
		t.Fatalf("a missing SAN replaced the CA")
	}
	newServing := mustCert(t, second.ServingCert)
	if newServing.Equal(oldServing) {
		t.Fatalf("serving cert was not reissued for the new SANs")
	}
	for _, host := range []string{"127.0.0.3", "apiserver.example", "kubernetes.default.svc"} {
		if err := verifyFor(newServing, second.CA, host, x509.ExtKeyUsageServerAuth); err != nil {
			t.Errorf("reissued serving cert does not verify for %s: %v", host, err)
		}
	}
	if !bytes.Equal(oldAdmin, mustRead(t, second.AdminCert)) {
		t.Errorf("a missing serving SAN reissued the admin cert")
	}

	// Asking for fewer SANs than the cert has keeps it.
	third := mustEnsure(t, dir, testSANs())
	if !mustCert(t, third.ServingCert).Equal(newServing) {
		t.Errorf("a subset of the SANs reissued the serving cert")
	}
}

func TestMissingCARegeneratesLeaves(t *testing.T) {
	dir := t.TempDir()
	first := mustEnsure(t, dir, testSANs())
	if err := os.Remove(first.CACert); err != nil {
		t.Fatal(err)
	}
	second := mustEnsure(t, dir, testSANs())
	if first.CA.Equal(second.CA) {
		t.Fatalf("CA was not recreated")
	}
	for _, f := range []string{second.ServingCert, second.AdminCert} {
		usage := x509.ExtKeyUsageServerAuth
		if f == second.AdminCert {
			usage = x509.ExtKeyUsageClientAuth
		}
		if err := verifyFor(mustCert(t, f), second.CA, "", usage); err != nil {
			t.Errorf("%s does not chain to the new CA: %v", filepath.Base(f), err)
		}
	}
}

func TestBrokenCAIsAnError(t *testing.T) {
	tests := map[string]func(p Paths) error{
		"garbage cert": func(p Paths) error { return os.WriteFile(p.CACert, []byte("garbage"), 0o644) },
		"missing key":  func(p Paths) error { return os.Remove(p.CAKey) },
		"foreign key":  func(p Paths) error { return os.WriteFile(p.CAKey, mustRead(t, p.AdminKey), 0o600) },
	}
	for name, breakIt := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := mustEnsure(t, dir, testSANs())
			if err := breakIt(p.Paths); err != nil {
				t.Fatal(err)
			}
			if _, err := Ensure(dir, testSANs()); err == nil {
				t.Fatalf("Ensure accepted a broken CA")
			}
		})
	}
}

func TestDefaultServingSANs(t *testing.T) {
	sans := DefaultServingSANs([]net.IP{net.ParseIP("10.96.0.1")}, []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("127.0.0.2")})
	wantDNS := []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}
	if !slices.Equal(sans.DNSNames, wantDNS) {
		t.Errorf("DNSNames = %v, want %v", sans.DNSNames, wantDNS)
	}
	var ips []string
	for _, ip := range sans.IPs {
		ips = append(ips, ip.String())
	}
	wantIPs := []string{"127.0.0.1", "::1", "10.96.0.1", "127.0.0.2"}
	if !slices.Equal(ips, wantIPs) {
		t.Errorf("IPs = %v, want %v (deduplicated, in order)", ips, wantIPs)
	}
}
