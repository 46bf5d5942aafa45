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
	"crypto/tls"
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

func TestWriteKubeconfig(t *testing.T) {
	dir := t.TempDir()
	p := mustEnsure(t, filepath.Join(dir, "pki"), testSANs())
	path := filepath.Join(dir, "kubeconfig")
	if err := WriteKubeconfig(path, "https://127.0.0.1:6443", p); err != nil {
		t.Fatal(err)
	}
	restCfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("loading the kubeconfig: %v", err)
	}
	if restCfg.Host != "https://127.0.0.1:6443" {
		t.Errorf("Host = %q", restCfg.Host)
	}
	if _, err := tls.X509KeyPair(restCfg.CertData, restCfg.KeyData); err != nil {
		t.Errorf("kubeconfig's client cert and key do not pair: %v", err)
	}
	if string(restCfg.CAData) != string(mustRead(t, p.CACert)) {
		t.Errorf("kubeconfig's CA is not ca.crt")
	}
}
