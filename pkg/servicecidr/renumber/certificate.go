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
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
)

// checkCertificate refuses a renumber that is to move the `kubernetes`
// Service k when the apiserver the plugin's connection reaches serves a
// certificate without the Service's new addresses as IP SANs: in-cluster
// clients would reach the new address and fail to verify the apiserver. It
// returns the plan's note on what it checked, or why it could not.
func (r *Runner) checkCertificate(ctx context.Context, k *corev1.Service, to Ranges) ([]string, error) {
	if k == nil {
		return nil, nil
	}
	ips := kubernetesNewIPs(k, to)
	want := strings.Join(ips, ",")
	cfg := r.opts.Config
	if cfg == nil {
		return []string{fmt.Sprintf("not checked that the apiservers' certificates name %s, the kubernetes Service's address in the target: no connection to check", want)}, nil
	}
	cert, err := servingCertificate(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("reading the certificate the apiserver at %s serves: %w", cfg.Host, err)
	}
	if cert == nil {
		return []string{fmt.Sprintf("not checked that the apiservers' certificates name %s, the kubernetes Service's address in the target: the connection to %s is not TLS", want, cfg.Host)}, nil
	}
	for _, ip := range ips {
		if !hasIPSAN(cert, ip) {
			return nil, fmt.Errorf("the apiserver at %s serves a certificate without IP SAN %s, the kubernetes Service's address in the target: add it (kubeadm init phase certs apiserver) before renumbering", cfg.Host, ip)
		}
	}
	return []string{fmt.Sprintf("the apiserver at %s serves a certificate with IP SAN %s, the kubernetes Service's address in the target; every other apiserver's must name it too", cfg.Host, want)}, nil
}

// servingCertificate is the leaf certificate the apiserver at cfg.Host serves
// the plugin's own connection, read from a GET /version made through cfg's
// transport (its TLS settings, proxy and dialer); nil when that is not TLS.
func servingCertificate(ctx context.Context, cfg *rest.Config) (*x509.Certificate, error) {
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	base, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.JoinPath("version").String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.TLS == nil || len(resp.TLS.PeerCertificates) == 0 {
		return nil, nil
	}
	return resp.TLS.PeerCertificates[0], nil
}

func hasIPSAN(cert *x509.Certificate, ip string) bool {
	want := net.ParseIP(ip)
	for _, got := range cert.IPAddresses {
		if got.Equal(want) {
			return true
		}
	}
	return false
}
