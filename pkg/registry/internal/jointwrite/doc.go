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

// Package jointwrite writes a new Service and the IPAddress of one of its
// ClusterIPs in one etcd transaction, where upstream writes the IPAddress in
// a request of its own before the Service's, and deletes a Service and one of
// its IPAddresses in one transaction, where upstream deletes the IPAddress
// after the Service.
//
// It stands beside upstream's code at v1.37.2 in two places:
//
//   - k8s.io/kubernetes/pkg/registry/core/service/ipallocator (ipallocator.go,
//     Allocator.createIPAddress and release): upstream's allocator sends each
//     IPAddress create and delete to its own apiserver through the loopback
//     client, one etcd request of its own each; netfork's allocator prepares
//     them in process instead (pkg/registry/networking/ipaddresswriter) and
//     leaves the etcd write to the Service's, halving a ClusterIP Service's
//     etcd requests.
//   - k8s.io/apiserver/pkg/storage/etcd3 (store.go, store.Create and
//     store.Delete): the etcd3 storage has no call that encodes an object
//     without writing it, nor one that writes two keys at once. PreparingStorage
//     encodes the IPAddress as store.Create does (the storage version through
//     the resource's codec, its encryption-at-rest transformer with the key as
//     authenticated data: the few lines re-typed are a listed upstream-shim
//     region), and ServiceStorage runs upstream's own etcd3 storage of Services
//     over an etcd client whose single-key put and delete become the joint
//     transaction.
//
// Everything but the etcd write stays where it was. The allocator prepares
// the IPAddress while the Service storage begins the create, as before: the
// IPAddress goes through admission (webhooks and ValidatingAdmissionPolicies
// on ipaddresses see and can refuse it), gets its managed fields, and passes
// its registry's strategy and validation; then PreparingStorage, in place of
// the etcd write at the end of the IPAddress registry's create, encodes it
// and hands it to the Slot of the Service's request. The Service's own create
// goes on (its validation, admission and quota); ServiceStorage then writes
// both keys in one transaction that succeeds only if neither exists. A
// Service create that fails before that leaves no IPAddress behind, not even
// for a moment.
//
// One IPAddress rides with the Service at most: two objects of one resource
// written in one transaction would share a resourceVersion, and a watch
// resumed from it would miss the second. The other ClusterIP of a dual-stack
// Service is prepared alike and written in a transaction of its own just
// before the Service's, so it is written only once the Service passed
// admission, but before the Service's own transaction can find its name taken.
package jointwrite
