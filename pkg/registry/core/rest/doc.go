// Package rest is netfork's REST storage provider for the core ("") API group.
// It stands in for the legacy provider of k8s.io/kubernetes/pkg/registry/core/rest
// (v1.37.1), which builds its Service allocators internally with no seam; netfork
// needs the Service storage to take its ClusterIP and NodePort allocators, and
// their repair loops, from netfork's pkg/registry/core/service packages. Every
// other core resource is upstream's storage, used as-is: the generic ones through
// upstream's corerest.GenericConfig, the rest through their upstream storage packages.
package rest
