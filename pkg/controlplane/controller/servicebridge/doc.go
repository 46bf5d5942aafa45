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

// Package servicebridge gives the bridge Services of kubectl-servicecidr the
// endpoints of the Services they bridge. The plugin (package
// github.com/netfork/netfork/pkg/servicecidr/renumber) moves a Service to a
// new range and keeps its old ClusterIPs serving with a selectorless bridge
// Service at them, labeled servicecidr.netfork.io/bridge-for=<Service name>
// in the Service's namespace; for the `kubernetes` Service, which the
// apiservers recreate in the new range, likewise. Pods started before hold
// the old addresses (KUBERNETES_SERVICE_HOST, a resolv.conf naming kube-dns's
// old address, a cached lookup), and the bridges keep them reaching the same
// endpoints because this controller keeps, for each bridge, one copy of each
// EndpointSlice of the Service it bridges (label
// kubernetes.io/service-name=<Service name>): the same address type,
// endpoints with their conditions (an apiserver or a pod shutting down stays
// serving+terminating as KEP-1669 asks) and ports.
//
// The copies are named after their sources (SliceName), labeled
// kubernetes.io/service-name=<bridge> and endpointslice.kubernetes.io/managed-by=
// ManagedBy, which neither of kube-controller-manager's EndpointSlice
// controllers claims, and owned by the bridge, so the garbage collector
// removes them with it; the controller deletes them too when the bridge goes
// or stops being one (it gains a selector or loses the label). The plugin
// writes the copies itself, with no owner, just before it frees the old
// address, so that kube-proxy has the bridge's endpoints when the bridge
// appears rather than a moment after; the controller leaves such slices alone
// while their bridge does not exist, and adopts them once it does.
//
// Bridges are selectorless, rather than copies of their Service's selector,
// because kube-controller-manager writes a new Service's slices only after it
// sees the Service, and kube-proxy programs a Service it sees without
// endpoints as refusing connections: the old address would refuse for that
// moment. Selectorless Services with hand-written slices are bridged the same way.
//
// One apiserver at a time runs it, elected with netfork's ServiceCIDR
// controllers. It follows the apiserver's shared Service and EndpointSlice
// informers. It is not upstream code and stands in for none: upstream has no
// bridge Services.
package servicebridge
