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
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"

	"k8s.io/client-go/util/keyutil"
)

// serviceAccountKeyBits is RSA 2048, what kubeadm uses for sa.key.
const serviceAccountKeyBits = 2048

// ensureServiceAccountKeys keeps an existing sa.key, since tokens already issued are signed
// with it, rewrites sa.pub if it is missing or stale, and generates both otherwise.
func ensureServiceAccountKeys(p Paths) error {
	var key crypto.Signer
	if exists(p.ServiceAccountKey) {
		existing, err := readSigner(p.ServiceAccountKey)
		if err != nil {
			return fmt.Errorf("pki: service-account key %s: %w", p.ServiceAccountKey, err)
		}
		if publicKeyFileMatches(p.ServiceAccountPublicKey, existing.Public()) {
			return nil
		}
		key = existing
	} else {
		generated, err := rsa.GenerateKey(rand.Reader, serviceAccountKeyBits)
		if err != nil {
			return fmt.Errorf("pki: generating service-account key: %w", err)
		}
		data, err := keyPEM(generated)
		if err != nil {
			return fmt.Errorf("pki: service-account key: %w", err)
		}
		if err := writeFile(p.ServiceAccountKey, data, 0o600); err != nil {
			return fmt.Errorf("pki: %w", err)
		}
		key = generated
	}
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return fmt.Errorf("pki: encoding service-account public key: %w", err)
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	if err := writeFile(p.ServiceAccountPublicKey, data, 0o644); err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	return nil
}

// publicKeyFileMatches reports whether path holds exactly the public half of want.
func publicKeyFileMatches(path string, want crypto.PublicKey) bool {
	keys, err := keyutil.PublicKeysFromFile(path)
	return err == nil && len(keys) == 1 && samePublicKey(want, keys[0])
}
