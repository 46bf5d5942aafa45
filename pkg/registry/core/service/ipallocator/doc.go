// Package ipallocator is netfork's ClusterIP allocator seam. It stands where
// upstream keeps k8s.io/kubernetes/pkg/registry/core/service/ipallocator
// (v1.37.1) and is the one place netfork's core storage asks for ClusterIP
// allocators, so that the allocator behind it (bitmap, IPAddress, dual-write)
// can be replaced without touching the Service storage.
package ipallocator
