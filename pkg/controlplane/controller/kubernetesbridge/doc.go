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

// Package kubernetesbridge gives the bridge Services of the `kubernetes`
// Service the apiservers' endpoints. kubectl-servicecidr (package
// github.com/netfork/netfork/pkg/servicecidr/renumber) moves the `kubernetes`
// Service to a new range by deleting it and creating, at its old ClusterIPs, a
// selectorless bridge Service in namespace default labeled
// servicecidr.netfork.io/bridge-for=kubernetes; the apiservers recreate
// `kubernetes` in the new range. Pods started before hold the old address as
// KUBERNETES_SERVICE_HOST, and the bridge keeps it reaching the apiservers
// because this controller keeps, for each such bridge, one EndpointSlice per
// address type equal to the `kubernetes` Service's EndpointSlices (label
// kubernetes.io/service-name=kubernetes): the same endpoints with their
// conditions, so an apiserver shutting down stays serving+terminating as
// KEP-1669 asks, and the same ports.
//
// The slices are named <bridge>-<address type> and labeled
// kubernetes.io/service-name=<bridge> and endpointslice.kubernetes.io/managed-by=
// ManagedBy, which neither of kube-controller-manager's EndpointSlice
// controllers claims, and are owned by the bridge Service, so the garbage
// collector removes them with it; the controller deletes them too when the
// bridge goes or stops being one (it gains a selector or loses the label).
//
// One apiserver at a time runs it, elected with netfork's ServiceCIDR
// controllers, whichever controller keeps the `kubernetes` Service's endpoints
// (upstream's, or netfork's with DualStackAPIServer). It follows the
// apiserver's shared Service and EndpointSlice informers. It is not upstream
// code and stands in for none: upstream has no bridge Services.
package kubernetesbridge
