// Package portallocator is netfork's NodePort allocator seam, where upstream
// keeps k8s.io/kubernetes/pkg/registry/core/service/portallocator (v1.37.1):
// the core storage gets its NodePort allocator only from here.
package portallocator
