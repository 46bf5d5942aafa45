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

// Package reconcilers is netfork's lease endpoint reconciler for the
// `kubernetes` Service (KEP-2438 dual-stack apiserver, KEP-1669 terminating
// hand-off). It stands where upstream keeps
// k8s.io/kubernetes/pkg/controlplane/reconcilers (v1.37.2) and replaces that
// package's lease reconciler (lease.go, with endpointsadapter.go) when the
// DualStackAPIServer gate is on; with the gate off netfork builds upstream's,
// unchanged. Upstream's reconciler stores one IP per apiserver, writes the
// Endpoints and copies them into one EndpointSlice, and drops an apiserver the
// moment it starts shutting down; it cannot publish a second family, and
// upstream never implemented KEP-2438.
//
// Every apiserver keeps refreshing upstream's lease (/masterleases/<primary
// IP>, upstream's TTL and format, through upstream's own Leases), so upstream
// apiservers on the same etcd keep counting it, and also an address lease of
// netfork's own (AddressLeasesPrefix) holding all its advertised addresses and
// whether it is terminating. From both, Decide picks the shape:
//
//   - some live apiserver (an unexpired upstream lease) has no address lease:
//     it is upstream's or a netfork with the gate off, so the Endpoints and the
//     `kubernetes` EndpointSlice are written exactly as upstream writes them
//     and the secondary-family slice is deleted (upstream #101070);
//   - every live apiserver has one: terminating apiservers are published as
//     ready=false, serving=true, terminating=true, and when every one of them
//     has an address of each family the Service becomes dual-stack, with one
//     EndpointSlice per family.
//
// The reconciler writes the EndpointSlices first and the Endpoints, which stay
// primary-family only, after them. Every write is conditional on the object it
// read before listing the leases, so a peer that listed a lease just before
// the apiserver removed it cannot put that apiserver back.
package reconcilers
