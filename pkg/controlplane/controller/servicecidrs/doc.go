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

// Package servicecidrs is netfork's ServiceCIDR deletion controller (KEP-1880):
// it keeps the finalizer networking.k8s.io/service-cidr-finalizer on every
// ServiceCIDR and removes it from one being deleted only when no IPAddress
// would be left without a ServiceCIDR. Upstream runs the same job in
// kube-controller-manager, k8s.io/kubernetes/pkg/controller/servicecidrs
// (v1.37.2); netfork runs its own inside the apiserver, under leader election
// on a Lease (LeaseNamespace/LeaseName), so a cluster without a
// controller-manager still protects its ServiceCIDRs. Where a
// controller-manager runs upstream's, turn netfork's off
// (--enable-servicecidr-controller=false): both keep the same finalizer, field
// manager and Ready=True message, but they disagree on the points below.
//
// It differs from upstream's:
//
//   - A ServiceCIDR being deleted is released when every IPAddress inside it
//     is also inside another ServiceCIDR that is ready and not being deleted
//     itself. Upstream also counts ServiceCIDRs that are being deleted or not
//     ready, so two overlapping ServiceCIDRs deleted together release each
//     other and orphan their IPAddresses. "Inside" is upstream's
//     servicecidr.PrefixContainsIP: not the network address, nor the IPv4
//     broadcast address.
//   - Every IPAddress counts, as the KEP says ("any IPAddress existing in a
//     cluster has to belong to a ServiceCIDR"); upstream counts only those the
//     apiserver's allocator manages.
//   - The grace period after deletion starts is the KEP's 60 s
//     (DefaultDeletionGracePeriod), not upstream's 10 s.
//   - No list of IPAddresses: the addresses are kept in order (a B-tree fed by
//     the apiserver's IPAddress index), so a deletion costs one pass over the
//     ServiceCIDRs and an O(log n) look-up per stretch they leave uncovered,
//     and an IPAddress event costs a look-up among the ServiceCIDRs being
//     deleted only.
//   - Ready=False with reason Terminating names an address that blocks the
//     deletion, and a Warning event DeletionBlocked says so once when it starts.
package servicecidrs
