// Package controlplane assembles netfork's kube-apiserver. It stands in for
// k8s.io/kubernetes/pkg/controlplane (v1.37.1), whose Instance builds the core
// storage, the kubernetes-Service controller, the endpoint reconciler and the
// default-ServiceCIDR controller with no seam to swap any of them. netfork keeps
// upstream's configuration (controlplane.Extra) and generic control plane
// (pkg/controlplane/apiserver) as they are and owns only the assembly: each of
// those four pieces is constructed in exactly one function of this package.
package controlplane
