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
