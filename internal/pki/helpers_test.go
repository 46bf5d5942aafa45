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
