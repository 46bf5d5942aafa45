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
	"crypto/x509"
	"net"
	"os"
	"testing"

	certutil "k8s.io/client-go/util/cert"
)

// testSANs are the SANs a one-apiserver local-up asks for.
func testSANs() certutil.AltNames {
	return DefaultServingSANs(
		[]net.IP{net.ParseIP("10.96.0.1"), net.ParseIP("fd00:10:96::1")},
		[]net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("198.18.0.1")},
	)
}

// mustEnsure runs Ensure and fails the test on error.
func mustEnsure(t *testing.T, dir string, sans certutil.AltNames) *PKI {
	t.Helper()
	p, err := Ensure(dir, sans)
	if err != nil {
		t.Fatalf("Ensure(%s): %v", dir, err)
	}
	return p
}

// mustRead returns a file's bytes.
func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// mustCert parses the certificate in path.
func mustCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	cert, err := readCert(path)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// verifyFor checks cert chains to ca for usage and, if host is set, covers host.
func verifyFor(cert, ca *x509.Certificate, host string, usage x509.ExtKeyUsage) error {
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	_, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, KeyUsages: []x509.ExtKeyUsage{usage}})
	return err
}
