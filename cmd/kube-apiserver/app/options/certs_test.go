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

package options

import (
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"testing"
)

func TestSelfSignedCertNamesBothFamilies(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantIPs []string
	}{
		{name: "bind pair",
			args:    []string{gateOn, "--bind-address=127.0.0.1,::1", "--service-cluster-ip-range=" + dualIPv4First},
			wantIPs: []string{"127.0.0.1", "::1", hostIPv4, hostIPv6, "10.96.0.1", "fd00:10:96::1"}},
		{name: "advertise pair",
			args:    []string{gateOn, "--advertise-address=192.0.2.20,2001:db8::20", "--service-cluster-ip-range=" + dualIPv6First},
			wantIPs: []string{"192.0.2.20", "2001:db8::20", "10.96.0.1", "fd00:10:96::1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s, fs := newTestOptions(t, host(hostIPv4, hostIPv6))
			if err := fs.Parse(append([]string{"--cert-dir=" + dir}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
				t.Fatal(err)
			}
			completed, err := s.Complete(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(completed.SecureServing.ServerCert.CertKey.CertFile)
			if err != nil {
				t.Fatalf("no generated certificate: %v", err)
			}
			block, _ := pem.Decode(data)
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.wantIPs {
				if !containsIP(cert.IPAddresses, net.ParseIP(want)) {
					t.Errorf("certificate names %v, missing %s", cert.IPAddresses, want)
				}
			}
		})
	}
}

func containsIP(ips []net.IP, ip net.IP) bool {
	for _, i := range ips {
		if i.Equal(ip) {
			return true
		}
	}
	return false
}
