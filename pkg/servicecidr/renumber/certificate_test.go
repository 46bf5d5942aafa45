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

package renumber

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
)

// tlsServer serves /version over TLS with a certificate naming 127.0.0.1 and
// ips, and returns a config trusting it.
func tlsServer(t *testing.T, ips ...string) *rest.Config {
	t.Helper()
	sans := []net.IP{net.ParseIP("127.0.0.1")}
	for _, ip := range ips {
		sans = append(sans, net.ParseIP(ip))
	}
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("apiserver", sans, nil)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{}`)) }))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{CAData: certPEM}}
}

func TestCheckCertificate(t *testing.T) {
	single := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kubernetes"}, Spec: corev1.ServiceSpec{ClusterIPs: []string{"10.96.0.1"}}}
	dual := single.DeepCopy()
	dual.Spec.ClusterIPs = []string{"10.96.0.1", "fd00:10:96::1"}
	to, _ := ParseRanges("10.200.0.0/16,fd00:10:200::/108")
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{}`)) }))
	t.Cleanup(plain.Close)

	for _, tc := range []struct {
		name      string
		k         *corev1.Service
		config    *rest.Config
		wantNote  string
		wantError string
	}{
		{name: "the new address named", k: single, config: tlsServer(t, "10.200.0.1"),
			wantNote: "serves a certificate with IP SAN 10.200.0.1, the kubernetes Service's address in the target"},
		{name: "the new address missing", k: single, config: tlsServer(t, "10.96.0.1"),
			wantError: "serves a certificate without IP SAN 10.200.0.1, the kubernetes Service's address in the target: add it (kubeadm init phase certs apiserver) before renumbering"},
		{name: "dual-stack, the IPv6 address missing", k: dual, config: tlsServer(t, "10.96.0.1", "10.200.0.1"),
			wantError: "without IP SAN fd00:10:200::1"},
		{name: "dual-stack, both named", k: dual, config: tlsServer(t, "10.200.0.1", "fd00:10:200::1"),
			wantNote: "with IP SAN 10.200.0.1,fd00:10:200::1"},
		{name: "not TLS", k: single, config: &rest.Config{Host: plain.URL},
			wantNote: "not checked that the apiservers' certificates name 10.200.0.1, the kubernetes Service's address in the target: the connection to " + plain.URL + " is not TLS"},
		{name: "no connection", k: single, wantNote: "not checked that the apiservers' certificates name 10.200.0.1"},
		{name: "nothing to move", k: nil, config: tlsServer(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New(nil, Options{Config: tc.config})
			notes, err := r.checkCertificate(context.Background(), tc.k, to)
			switch {
			case tc.wantError != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantError) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), tc.config.Host) {
					t.Errorf("checkCertificate = %v, %v; want one line naming %s with %q", notes, err, tc.config.Host, tc.wantError)
				}
			case err != nil:
				t.Errorf("checkCertificate: %v", err)
			case tc.wantNote == "" && len(notes) != 0:
				t.Errorf("notes %q, want none", notes)
			case tc.wantNote != "" && (len(notes) != 1 || !strings.Contains(notes[0], tc.wantNote)):
				t.Errorf("notes %q, want one with %q", notes, tc.wantNote)
			}
		})
	}
}
