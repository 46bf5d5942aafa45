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
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

const (
	// leafValidity is one year, like kubeadm's leaves; Ensure renews a leaf close to expiry.
	leafValidity = 365 * 24 * time.Hour
	// renewBefore renews a leaf that would expire within a day of a restart.
	renewBefore = 24 * time.Hour
	// clockSkew backdates NotBefore so a cert is valid at once on a slightly skewed clock.
	clockSkew = 5 * time.Minute
)

// newKey returns a fresh P-256 key, fast to generate and accepted everywhere TLS is.
func newKey() (crypto.Signer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating key: %w", err)
	}
	return key, nil
}

// newSignedCert issues a leaf for key, signed by the CA, as cfg describes.
func newSignedCert(cfg certutil.Config, key crypto.Signer, ca *x509.Certificate, caKey crypto.Signer) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 63))
	if err != nil {
		return nil, fmt.Errorf("generating serial: %w", err)
	}
	now := time.Now()
	notAfter := now.Add(leafValidity)
	if notAfter.After(ca.NotAfter) {
		notAfter = ca.NotAfter
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial.Add(serial, big.NewInt(1)),
		Subject:      pkix.Name{CommonName: cfg.CommonName, Organization: cfg.Organization},
		DNSNames:     cfg.AltNames.DNSNames,
		IPAddresses:  cfg.AltNames.IPs,
		NotBefore:    now.Add(-clockSkew).UTC(),
		NotAfter:     notAfter.UTC(),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  cfg.Usages,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return nil, fmt.Errorf("signing certificate for %q: %w", cfg.CommonName, err)
	}
	return x509.ParseCertificate(der)
}

// certPEM encodes one certificate as PEM.
func certPEM(cert *x509.Certificate) []byte {
	data, _ := certutil.EncodeCertificates(cert) // Encoding a parsed certificate cannot fail.
	return data
}

// keyPEM encodes a private key as PEM in the form keyutil parses back.
func keyPEM(key crypto.Signer) ([]byte, error) {
	data, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, fmt.Errorf("encoding key: %w", err)
	}
	return data, nil
}
