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
	networkingv1 "k8s.io/api/networking/v1"
)

const (
	// ManagedByLabel is the label upstream's (and netfork's) allocators put on the
	// IPAddresses they write.
	ManagedByLabel = "ipaddress.kubernetes.io/managed-by"
	// ManagedByAllocator is ManagedByLabel's value for a ClusterIP allocator.
	ManagedByAllocator = "ipallocator.k8s.io"
)

// CheckIPAddresses checks every ClusterIP has an IPAddress naming its Service as parent,
// and every IPAddress belongs to a Service that holds it; clusterIPs maps each ClusterIP
// to its Service (namespace/name).
func CheckIPAddresses(p *Problems, addresses []networkingv1.IPAddress, clusterIPs map[string]string) {
	owners := map[string]string{}
	for _, addr := range addresses {
		ref := addr.Spec.ParentRef
		if ref == nil || ref.Group != "" || ref.Resource != "services" {
			p.Addf("IPAddress %s has no Service as parent", addr.Name)
			continue
		}
		owner := ref.Namespace + "/" + ref.Name
		owners[CanonicalIP(addr.Name)] = owner
		if holder, ok := clusterIPs[CanonicalIP(addr.Name)]; !ok || holder != owner {
			p.Addf("IPAddress %s is orphaned: its parent Service %s does not hold it", addr.Name, owner)
		}
	}
	for ip, holder := range clusterIPs {
		if _, ok := owners[ip]; !ok {
			p.Addf("ClusterIP %s of Service %s has no IPAddress", ip, holder)
		}
	}
}
