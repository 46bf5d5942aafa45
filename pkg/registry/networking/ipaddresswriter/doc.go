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

// Package ipaddresswriter writes the IPAddresses netfork's ClusterIP
// allocator creates and deletes through this apiserver's own IPAddress
// storage, in process, instead of through the loopback client.
//
// It stands beside upstream's code at v1.37.2:
//
//   - k8s.io/kubernetes/pkg/registry/core/service/ipallocator (ipallocator.go,
//     Allocator.createIPAddress and release), which sends each IPAddress create
//     and delete back to its own apiserver over the loopback connection: TLS,
//     HTTP/2, authentication, priority and fairness, authorization, routing and
//     two encodings for every ClusterIP, about as much as the Service request
//     itself. The loopback user is exempt from priority and fairness and
//     allowed everything (system:masters), so skipping those filters changes
//     no outcome.
//   - k8s.io/apiserver/pkg/endpoints/handlers (create.go createHandler,
//     delete.go DeleteResource, fieldmanager/admission.go) and
//     endpoints/installer.go (the field manager of a resource's handlers),
//     whose steps a request runs between the filters and the storage: the
//     Writer runs the same steps, in listed upstream-shim regions, since the
//     handlers take an HTTP request and keep their field manager to themselves.
//   - k8s.io/apiserver/pkg/registry/generic/registry (store.go Store.Delete),
//     which reads an object from etcd before its conditional delete; the
//     Writer deletes at the revision the watch cache holds instead.
//
// The Writer keeps what makes the object and the request the same as
// upstream's:
//
//   - the identity: the loopback user (system:apiserver, groups
//     system:authenticated then system:masters, as upstream's loopback token
//     authenticates), so admission sees the user upstream's request carries;
//   - the options the API handlers pass admission (meta.k8s.io/v1
//     CreateOptions and DeleteOptions, no dry run);
//   - mutating and validating admission of this apiserver's chain, so
//     webhooks and ValidatingAdmissionPolicies on ipaddresses still apply
//     (with the managed-fields guard the API handler adds), and their audit
//     annotations, recorded on the audit event of the request that made the
//     write;
//   - managed fields, computed with the same field manager machinery as the
//     API handler, for manager "kube-apiserver" (upstream's loopback user agent);
//   - the storage itself: upstream's IPAddress strategy, validation, etcd key
//     and encoding.
//
// What differs, and is documented in docs/differences.md: the writes are not
// audited as requests of their own and are not counted in apiserver_request_*
// metrics, and the audit annotations of a write land on the request that made
// it (none for a release, which upstream's allocator interface gives no request).
// Until Bind is called (or when the networking.k8s.io/v1 ipaddresses
// resource is disabled), the Writer falls back to the loopback client.
package ipaddresswriter
