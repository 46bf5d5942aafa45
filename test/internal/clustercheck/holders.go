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

package clustercheck

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
)

// Holders maps each key (ClusterIP or NodePort) to the Service that holds it, and
// reports a key two Services hold; what names the key's kind in the problem.
func Holders(p *Problems, services []corev1.Service, what string, keys func(corev1.Service) []string) map[string]string {
	held := map[string]string{}
	for _, svc := range services {
		ref := svc.Namespace + "/" + svc.Name
		seen := map[string]bool{} // A Service may repeat a NodePort across protocols.
		for _, key := range keys(svc) {
			if seen[key] {
				continue
			}
			seen[key] = true
			if other, ok := held[key]; ok {
				p.Addf("%s %s is held by Services %s and %s", what, key, other, ref)
				continue
			}
			held[key] = ref
		}
	}
	return held
}

// ServiceClusterIPs are a Service's allocated ClusterIPs, canonical; none when headless.
func ServiceClusterIPs(svc corev1.Service) []string {
	ips := svc.Spec.ClusterIPs
	if len(ips) == 0 && svc.Spec.ClusterIP != "" {
		ips = []string{svc.Spec.ClusterIP}
	}
	var out []string
	for _, ip := range ips {
		if ip != "" && ip != corev1.ClusterIPNone {
			out = append(out, CanonicalIP(ip))
		}
	}
	return out
}

// ServiceNodePorts are a Service's allocated NodePorts, as decimal strings.
func ServiceNodePorts(svc corev1.Service) []string {
	var out []string
	for _, port := range svc.Spec.Ports {
		if port.NodePort != 0 {
			out = append(out, fmt.Sprint(port.NodePort))
		}
	}
	return out
}

// CanonicalIP spells an address as IPAddress objects are named, leaving unparsable ones as given.
func CanonicalIP(s string) string {
	addr, err := netip.ParseAddr(s)
	if err != nil {
		return s
	}
	return addr.String()
}
