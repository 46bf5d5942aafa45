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

// Package kubernetesservice is netfork's controller of the `kubernetes`
// Service and its endpoints, run in every apiserver when the
// DualStackAPIServer gate is on. It stands where upstream keeps
// k8s.io/kubernetes/pkg/controlplane/controller/kubernetesservice (v1.37.2),
// which netfork still runs, unchanged, with the gate off.
//
// Upstream's controller creates the Service once, single-stack, and never
// reconciles it afterwards, and on shutdown drops the apiserver from the
// endpoints at once. netfork's differs in two ways:
//
//   - Every reconcile interval the lease reconciler
//     (github.com/netfork/netfork/pkg/controlplane/reconcilers) decides whether
//     every live apiserver is netfork's and dual-stack, and this controller
//     moves the Service to that shape (KEP-2438): RequireDualStack with the
//     first address of each service range, or SingleStack with the primary
//     one, as upstream creates it. Only the IP family fields change; ports and
//     type are upstream's business, set once at creation. Upstream apiservers
//     never update an existing Service and every netfork apiserver decides
//     from the same leases, so apiservers of both kinds do not fight over it.
//   - On graceful shutdown (its pre-shutdown hook) the apiserver first
//     publishes itself as terminating (ready=false, serving=true,
//     terminating=true) and keeps its leases alive for
//     --shutdown-delay-duration, while the generic apiserver still serves;
//     then it removes itself before the server stops accepting requests
//     (KEP-1669), so kube-proxy can fall back to it while it drains if it is
//     the last one.
package kubernetesservice
