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
	"path/filepath"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// writeFile replaces path atomically, so a crash never leaves a truncated cert or key.
func writeFile(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // Fails harmlessly once renamed.
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// writeCertAndKey writes the key before the cert, so a cert on disk always has its key.
func writeCertAndKey(certPath, keyPath string, cert *x509.Certificate, key crypto.Signer) error {
	data, err := keyPEM(key)
	if err != nil {
		return err
	}
	if err := writeFile(keyPath, data, 0o600); err != nil {
		return err
	}
	return writeFile(certPath, certPEM(cert), 0o644)
}

// readCert parses the first certificate in a PEM file.
func readCert(path string) (*x509.Certificate, error) {
	certs, err := certutil.CertsFromFile(path)
	if err != nil {
		return nil, err
	}
	return certs[0], nil
}

// readSigner parses a PEM private key file that can sign.
func readSigner(path string) (crypto.Signer, error) {
	key, err := keyutil.PrivateKeyFromFile(path)
	if err != nil {
		return nil, err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%s: %T cannot sign", path, key)
	}
	return signer, nil
}

// exists reports whether path is present; other stat errors count as present so that
// reading it reports them.
func exists(path string) bool {
	_, err := os.Stat(path)
	return !os.IsNotExist(err)
}
