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

// Package ipaddressindex follows this apiserver's IPAddress objects for the
// readers inside it (the ClusterIP allocator, the IPAddress repair loop, the
// ServiceCIDR deletion and usage controllers) and keeps, per address, only
// the few fields they read.
//
// It stands where upstream's kube-apiserver (v1.37.2) uses the shared
// informer of networking.k8s.io/v1 IPAddresses
// (k8s.io/kubernetes/pkg/registry/core/service/ipallocator,
// pkg/registry/core/service/ipallocator/controller): each IPAddress is
// encoded by the storage, kept in the watch cache, sent over the loopback
// watch, decoded again and kept a second time, whole, in the informer's store.
// The Index instead lists and watches the IPAddress storage in process (the
// registry store, through the watch cache when there is one) with
// client-go's own Reflector, whose Store is the Index: list, watch from a
// resource version, bookmarks, and a relist when the resource version is
// too old or the watch closes are the Reflector's. Of each object it keeps
// the name, UID, resourceVersion, creation time, the parentRef and the two
// labels the allocators set (managed-by, ip-family); the objects it hands
// its readers (Lister, event handlers) are rebuilt from those and carry
// nothing else.
//
// Until Bind gives it the storage (or when the networking.k8s.io/v1
// ipaddresses resource is disabled), it lists and watches through the client
// it was built with.
package ipaddressindex
