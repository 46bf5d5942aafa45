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

// Package ipallocator is netfork's ClusterIP allocator. It stands where
// upstream keeps k8s.io/kubernetes/pkg/registry/core/service/ipallocator
// (v1.37.2) and holds two things:
//
//   - Range, the legacy bitmap allocator over one CIDR, in place of upstream's
//     Range (bitmap.go). It serves ClusterIPs when MultiCIDRServiceAllocator is
//     off and is the dual-write bitmap when DisableAllocatorDualWrite is off.
//     It keeps upstream's layout (offset i is network+1+i; no network or IPv4
//     broadcast address; an IPv6 bitmap holds the first 2^16 addresses), errors,
//     dry-run answers and metrics, and differs where upstream is slow or wrong:
//     it sits on netfork's allocation map (allocator.AllocationMap, whose
//     AllocateNext does not walk the band), maps addresses to offsets without
//     big.Int (no allocation; no int64 wrap-around, upstream #138374), and
//     sizes the KEP-3070 band from the usable addresses (upstream #115316).
//   - CIDRAllocator, the KEP-1880 allocator over ServiceCIDR and IPAddress
//     objects, in place of upstream's MetaAllocator and per-CIDR Allocator
//     (cidrallocator.go, ipallocator.go). Upstream's lists every IPAddress
//     twice per allocation for its metrics, walks a range to find a free
//     address and reads upstream's locked gates. Netfork's keeps an index of
//     the ServiceCIDR prefixes and of the used addresses, fed by the
//     ServiceCIDR informer, the apiserver's IPAddress index (package
//     ipaddressindex, in place of an IPAddress informer) and its own writes
//     (cidrindex.go): allocation, release and the counts cost
//     a map lookup per distinct prefix length, overlapping prefixes are merged,
//     a terminating ServiceCIDR is never allocated from, a /64 is probed, not
//     walked, and the KEP-3070 band applies inside each prefix. It dual-writes
//     the legacy bitmap (a Range) when DisableAllocatorDualWrite is off.
//     Upstream's Service storage gives the Service (for the IPAddress's
//     parentRef) only to upstream's concrete MetaAllocator, so AllocateNext and
//     Allocate reserve an address and Commit, called by netfork's wrapper
//     around the Service store (pkg/registry/core/rest), creates the IPAddress.
//   - The seam (NewAllocators) through which netfork's core storage gets its
//     ClusterIP allocators, so the allocator behind it (bitmap, IPAddress,
//     dual-write) can change without touching the Service storage.
package ipallocator
