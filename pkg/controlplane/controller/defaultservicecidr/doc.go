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

// Package defaultservicecidr keeps the `kubernetes` ServiceCIDR, the one built
// from --service-cluster-ip-range (KEP-1880 "bootstrap"). It stands in for
// k8s.io/kubernetes/pkg/controlplane/controller/defaultservicecidr (v1.37.2),
// which netfork's control plane would otherwise start, and keeps its contract:
// the same object name, field manager and Ready message, one instance in every
// apiserver without leader election, and a post-start hook that does not return
// until the object exists, so no apiserver reports ready while no Service could
// get a ClusterIP.
//
// It differs from upstream's where upstream is slow or quiet:
//
//   - it is driven by the object's events, so a deleted `kubernetes`
//     ServiceCIDR is recreated as soon as it is gone rather than at the next
//     10 s poll (the poll stays, as a safety net);
//   - every failure and every mismatch is the KEP's Warning event
//     KubernetesDefaultServiceCIDRError on the object (upstream 1.37 names the
//     mismatch KubernetesDefaultServiceCIDRInconsistent), once per object and
//     spec rather than once per process, so a recreated object is reported
//     again;
//   - it writes events through the events/v1 API.
//
// The first apiserver wins: one whose flags differ from the stored object logs,
// reports and leaves it alone. The one change it makes to an existing object is
// the one the API allows (kubernetes/kubernetes#131261): an apiserver whose
// flags are the stored single CIDR plus a second family adds that family.
// Deletion is not its business: a `kubernetes` ServiceCIDR being deleted is left
// to the deletion controller (package servicecidrs) and recreated once gone.
package defaultservicecidr
