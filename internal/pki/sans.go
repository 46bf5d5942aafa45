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
	"crypto/x509"
	"net"

	certutil "k8s.io/client-go/util/cert"
)

// defaultDNSNames are the names in-cluster clients and local users reach the apiserver by.
var defaultDNSNames = []string{
	"localhost",
	"kubernetes",
	"kubernetes.default",
	"kubernetes.default.svc",
	"kubernetes.default.svc.cluster.local",
}

// DefaultServingSANs returns the serving cert's SANs for a local control plane: loopback
// and the kubernetes Service names, plus the Service's cluster IPs and any extra IPs (the
// apiservers' bind and advertise addresses), without duplicates.
func DefaultServingSANs(serviceIPs []net.IP, extraIPs []net.IP) certutil.AltNames {
	ips := []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback}
	ips = append(ips, serviceIPs...)
	ips = append(ips, extraIPs...)
	return certutil.AltNames{
		DNSNames: append([]string(nil), defaultDNSNames...),
		IPs:      uniqueIPs(ips),
	}
}

// uniqueIPs drops repeated addresses, keeping the first occurrence's order.
func uniqueIPs(ips []net.IP) []net.IP {
	var out []net.IP
	seen := map[string]bool{}
	for _, ip := range ips {
		if ip == nil || seen[ip.String()] {
			continue
		}
		seen[ip.String()] = true
		out = append(out, ip)
	}
	return out
}

// missingSAN returns the first requested name or IP cert does not cover, or "" if none.
func missingSAN(cert *x509.Certificate, sans certutil.AltNames) string {
	for _, name := range sans.DNSNames {
		if cert.VerifyHostname(name) != nil {
			return name
		}
	}
	for _, ip := range sans.IPs {
		if cert.VerifyHostname(ip.String()) != nil {
			return ip.String()
		}
	}
	return ""
}
