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

package servicebridge

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Mirror is what the slices of the bridge Service namespace/bridge must be:
// one copy of each slice of the Service source (sources, those this
// controller wrote left out), with the same address type, endpoints and
// ports, labeled for the bridge and owned by owner. kubectl-servicecidr
// writes them with a nil owner before it creates the bridge; the controller
// adopts them.
func Mirror(namespace, bridge string, owner *metav1.OwnerReference, source string, sources []*discoveryv1.EndpointSlice) []*discoveryv1.EndpointSlice {
	sorted := make([]*discoveryv1.EndpointSlice, 0, len(sources))
	for _, s := range sources {
		if s.Labels[discoveryv1.LabelManagedBy] != ManagedBy {
			sorted = append(sorted, s)
		}
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	out := make([]*discoveryv1.EndpointSlice, 0, len(sorted))
	taken := map[string]bool{}
	for _, src := range sorted {
		name := SliceName(bridge, source, src.Name)
		if taken[name] {
			name = hashedName(bridge, src.Name)
		}
		taken[name] = true
		m := &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{
				Name:      name,
				Namespace: namespace,
				Labels:    map[string]string{discoveryv1.LabelServiceName: bridge, discoveryv1.LabelManagedBy: ManagedBy},
			},
			AddressType: src.AddressType,
			Endpoints:   make([]discoveryv1.Endpoint, len(src.Endpoints)),
			Ports:       make([]discoveryv1.EndpointPort, len(src.Ports)),
		}
		if owner != nil {
			m.OwnerReferences = []metav1.OwnerReference{*owner}
		}
		for i := range src.Endpoints {
			src.Endpoints[i].DeepCopyInto(&m.Endpoints[i])
		}
		for i := range src.Ports {
			src.Ports[i].DeepCopyInto(&m.Ports[i])
		}
		out = append(out, m)
	}
	return out
}

// SliceName is the name of the bridge's copy of the slice named slice of the
// Service source: the slice's name with the bridge's name for the Service's,
// e.g. kubernetes -> kubernetes-renumber-bridge, kubernetes-ipv6 ->
// kubernetes-renumber-bridge-ipv6, web-x7k2p -> web-renumber-bridge-x7k2p; a
// slice not named after its Service gets <bridge>-<slice>; a name too long
// for an object gets a hash.
func SliceName(bridge, source, slice string) string {
	var name string
	switch {
	case slice == source:
		name = bridge
	case strings.HasPrefix(slice, source+"-"):
		name = bridge + strings.TrimPrefix(slice, source)
	default:
		name = bridge + "-" + slice
	}
	if len(name) > validation.DNS1123SubdomainMaxLength {
		return hashedName(bridge, slice)
	}
	return name
}

// hashedName is <bridge>-<hash of slice>, for a slice whose SliceName is too
// long or taken by another slice's copy.
func hashedName(bridge, slice string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(slice))
	return fmt.Sprintf("%s-%016x", bridge, h.Sum64())
}
