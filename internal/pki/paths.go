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
