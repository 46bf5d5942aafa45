// Package rest is netfork's REST storage provider for the core ("") API group.
// It wraps the legacy provider of k8s.io/kubernetes/pkg/registry/core/rest
// (v1.37.1): upstream builds every core resource, and netfork swaps in a
// Service storage whose ClusterIP and NodePort allocators, and their repair
// loops, are netfork's (pkg/registry/core/service). Upstream's provider builds
// its own allocators and repair loops internally with no seam; the Service
// storage built on them is destroyed with them, and the control plane hands
// upstream an informer factory that never starts, so those repair loops,
// never run, never see an event either (pkg/controlplane).
package rest
