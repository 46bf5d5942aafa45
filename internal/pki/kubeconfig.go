package pki

import (
	"fmt"
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeconfigName names the cluster, user and context, so merging into another kubeconfig
// keeps them apart from other clusters.
const kubeconfigName = "netfork-local"

// WriteKubeconfig writes a kubeconfig at path for the admin user against serverURL, with
// the CA and the admin cert and key embedded so it works from any directory.
func WriteKubeconfig(path, serverURL string, p *PKI) error {
	files := map[string][]byte{p.CACert: nil, p.AdminCert: nil, p.AdminKey: nil}
	for name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("pki: kubeconfig %s: %w", path, err)
		}
		files[name] = data
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[kubeconfigName] = &clientcmdapi.Cluster{
		Server:                   serverURL,
		CertificateAuthorityData: files[p.CACert],
	}
	cfg.AuthInfos[kubeconfigName] = &clientcmdapi.AuthInfo{
		ClientCertificateData: files[p.AdminCert],
		ClientKeyData:         files[p.AdminKey],
	}
	cfg.Contexts[kubeconfigName] = &clientcmdapi.Context{Cluster: kubeconfigName, AuthInfo: kubeconfigName}
	cfg.CurrentContext = kubeconfigName
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("pki: writing kubeconfig %s: %w", path, err)
	}
	return nil
}
