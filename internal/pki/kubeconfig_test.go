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
