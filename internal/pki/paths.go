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

import "path/filepath"

// Paths are the PEM files of a PKI directory, named as kubeadm names them so the layout is
// familiar.
type Paths struct {
	CACert                  string
	CAKey                   string
	ServingCert             string
	ServingKey              string
	ServiceAccountKey       string
	ServiceAccountPublicKey string
	AdminCert               string
	AdminKey                string
}

// PathsIn lists the files Ensure reads and writes under dir.
func PathsIn(dir string) Paths {
	return Paths{
		CACert:                  filepath.Join(dir, "ca.crt"),
		CAKey:                   filepath.Join(dir, "ca.key"),
		ServingCert:             filepath.Join(dir, "apiserver.crt"),
		ServingKey:              filepath.Join(dir, "apiserver.key"),
		ServiceAccountKey:       filepath.Join(dir, "sa.key"),
		ServiceAccountPublicKey: filepath.Join(dir, "sa.pub"),
		AdminCert:               filepath.Join(dir, "admin.crt"),
		AdminKey:                filepath.Join(dir, "admin.key"),
	}
}
