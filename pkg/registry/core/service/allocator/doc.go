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

// Package allocator is netfork's allocation map over the offsets [0, size) of a
// Service IP or NodePort range. It stands where upstream keeps
// k8s.io/kubernetes/pkg/registry/core/service/allocator (v1.37.2), whose
// AllocationBitmap it replaces behind the same upstream Interface and
// Snapshottable, for three reasons:
//
//   - Upstream's AllocateNext tests one offset at a time (big.Int.Bit) from a
//     random start to the next free one: about a thousand offsets when the
//     dynamic band is 99.9% full, the whole band when one value is left.
//     AllocationMap keeps a summary bitmap of the words that still have a free
//     offset and skips full words 64 at a time, so a search reads at most
//     size/4096 summary words and two data words, and allocates nothing.
//   - The KEP-3070/KEP-3668 bands (static lower band, dynamic upper band) are
//     first-class: BandOf and Used report which band a value is in and how many
//     values each band holds in O(1), for netfork's scope-labeled metrics,
//     where upstream can only give one total.
//   - Restore says which stored range does not match which configured range
//     (a *RangeMismatchError) instead of upstream's bare message.
//
// The stored format does not change: Snapshot gives the bytes upstream's
// AllocationBitmap gives for the same set (big.Int.Bytes of a bitmap where bit i
// is offset i), and Restore takes upstream's bytes, so a netfork and an upstream
// apiserver can share one RangeAllocation in etcd.
//
// The band sizes come from ClusterIPBandSize and NodePortBandSize, which give
// the numbers upstream's ipallocator and portallocator give (the KEPs' worked
// examples), computed so that the #115316 panic for /28 and /124 cannot happen.
package allocator
