// Package portallocator is netfork's NodePort allocator. It stands where
// upstream keeps k8s.io/kubernetes/pkg/registry/core/service/portallocator
// (v1.37.1), whose PortAllocator it replaces with one of the same interface,
// errors and metrics on netfork's allocation map (allocator.AllocationMap),
// whose AllocateNext stays O(1) when the KEP-3668 dynamic band is nearly full
// where upstream's walks it. NewStored is the seam through which netfork's
// core storage gets its NodePort allocator.
package portallocator
