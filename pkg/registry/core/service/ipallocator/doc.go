// Package ipallocator is netfork's ClusterIP allocator. It stands where
// upstream keeps k8s.io/kubernetes/pkg/registry/core/service/ipallocator
// (v1.37.1) and holds two things:
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
//   - The seam (NewAllocators) through which netfork's core storage gets its
//     ClusterIP allocators, so the allocator behind it (bitmap, IPAddress,
//     dual-write) can change without touching the Service storage.
//
// Upstream's MetaAllocator (IPAddress objects) is still used for
// MultiCIDRServiceAllocator until netfork's own replaces it.
package ipallocator
