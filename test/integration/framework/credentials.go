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

package framework

import (
	"net"
	"testing"

	restclient "k8s.io/client-go/rest"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/internal/pki"
)

// credentials are a test apiserver's CA, serving, service-account and admin files.
type credentials struct {
	pki.Paths
}

func newCredentials(t testing.TB, dir string, extraIPs []net.IP) *credentials {
	t.Helper()
	sans := pki.DefaultServingSANs(
		[]net.IP{netutils.ParseIPSloppy("10.96.0.1"), netutils.ParseIPSloppy("fd00:10:96::1")},
		extraIPs)
	p, err := pki.Ensure(dir, sans)
	if err != nil {
		t.Fatalf("framework: creating PKI in %s: %v", dir, err)
	}
	return &credentials{Paths: p.Paths}
}

// adminConfig is a client config for host authenticated as a cluster admin.
func (c *credentials) adminConfig(host string) *restclient.Config {
	return &restclient.Config{
		Host: host,
		TLSClientConfig: restclient.TLSClientConfig{
			CAFile:   c.CACert,
			CertFile: c.AdminCert,
			KeyFile:  c.AdminKey,
		},
		QPS:   -1,
		Burst: -1,
	}
}
