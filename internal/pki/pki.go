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
	"crypto/x509"
	"fmt"
	"os"
	"slices"
	"time"

	certutil "k8s.io/client-go/util/cert"
)

const (
	// caCommonName names the local CA so users can tell it from other clusters' CAs.
	caCommonName = "netfork-ca"
	// servingCommonName is the apiserver serving cert's subject; clients check SANs only.
	servingCommonName = "kube-apiserver"
	// AdminCommonName is the admin client cert's user name, as kubeadm names it.
	AdminCommonName = "kubernetes-admin"
	// AdminOrganization is the admin's group, which RBAC binds to cluster-admin.
	AdminOrganization = "system:masters"
)

// PKI is a PKI directory whose files are all present and consistent.
type PKI struct {
	Paths
	// CA is the certificate the serving and admin certs chain to.
	CA *x509.Certificate
}

// leafSpec is a CA-signed cert the directory must hold.
type leafSpec struct {
	certPath, keyPath string
	cfg               certutil.Config
}

// Ensure loads the PKI in dir, generating whatever is missing or no longer fits: a missing
// CA is created (and with it every leaf), a leaf is reissued by the existing CA when it is
// missing, does not chain to the CA, expires within a day or, for the serving cert, lacks
// one of servingSANs; everything else is kept as it is.
func Ensure(dir string, servingSANs certutil.AltNames) (*PKI, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pki: creating %s: %w", dir, err)
	}
	paths := PathsIn(dir)
	ca, caKey, err := ensureCA(paths)
	if err != nil {
		return nil, err
	}
	leaves := []leafSpec{
		{paths.ServingCert, paths.ServingKey, certutil.Config{
			CommonName: servingCommonName,
			AltNames:   servingSANs,
			Usages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		}},
		{paths.AdminCert, paths.AdminKey, certutil.Config{
			CommonName:   AdminCommonName,
			Organization: []string{AdminOrganization},
			Usages:       []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		}},
	}
	for _, leaf := range leaves {
		if err := ensureLeaf(leaf, ca, caKey); err != nil {
			return nil, err
		}
	}
	if err := ensureServiceAccountKeys(paths); err != nil {
		return nil, err
	}
	return &PKI{Paths: paths, CA: ca}, nil
}

// ensureCA loads the CA, or creates one when its cert is absent; an unreadable or
// mismatched CA is an error, since replacing it would silently invalidate every client.
func ensureCA(p Paths) (*x509.Certificate, crypto.Signer, error) {
	if !exists(p.CACert) {
		return newCA(p)
	}
	ca, err := readCert(p.CACert)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: CA cert %s: %w", p.CACert, err)
	}
	key, err := readSigner(p.CAKey)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: CA key %s: %w", p.CAKey, err)
	}
	if !samePublicKey(ca.PublicKey, key.Public()) {
		return nil, nil, fmt.Errorf("pki: CA key %s does not match CA cert %s", p.CAKey, p.CACert)
	}
	return ca, key, nil
}

// newCA creates and writes a self-signed CA valid for ten years.
func newCA(p Paths) (*x509.Certificate, crypto.Signer, error) {
	key, err := newKey()
	if err != nil {
		return nil, nil, fmt.Errorf("pki: CA: %w", err)
	}
	ca, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: caCommonName}, key)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: creating CA: %w", err)
	}
	if err := writeCertAndKey(p.CACert, p.CAKey, ca, key); err != nil {
		return nil, nil, fmt.Errorf("pki: %w", err)
	}
	return ca, key, nil
}

// ensureLeaf reissues the leaf unless the one on disk still fits its spec.
func ensureLeaf(spec leafSpec, ca *x509.Certificate, caKey crypto.Signer) error {
	if leafFits(spec, ca) {
		return nil
	}
	key, err := newKey()
	if err != nil {
		return fmt.Errorf("pki: %s: %w", spec.certPath, err)
	}
	cert, err := newSignedCert(spec.cfg, key, ca, caKey)
	if err != nil {
		return fmt.Errorf("pki: %s: %w", spec.certPath, err)
	}
	if err := writeCertAndKey(spec.certPath, spec.keyPath, cert, key); err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	return nil
}

// leafFits reports whether the leaf on disk has its key, chains to ca for its usages for
// at least another day, and carries the subject and every SAN the spec asks for.
func leafFits(spec leafSpec, ca *x509.Certificate) bool {
	cert, err := readCert(spec.certPath)
	if err != nil {
		return false
	}
	key, err := readSigner(spec.keyPath)
	if err != nil || !samePublicKey(cert.PublicKey, key.Public()) {
		return false
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	opts := x509.VerifyOptions{
		Roots:       roots,
		KeyUsages:   spec.cfg.Usages,
		CurrentTime: time.Now().Add(renewBefore),
	}
	if _, err := cert.Verify(opts); err != nil {
		return false
	}
	return cert.Subject.CommonName == spec.cfg.CommonName &&
		slices.Equal(cert.Subject.Organization, spec.cfg.Organization) &&
		missingSAN(cert, spec.cfg.AltNames) == ""
}

// samePublicKey compares two public keys of any standard type.
func samePublicKey(a, b crypto.PublicKey) bool {
	eq, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && eq.Equal(b)
}
