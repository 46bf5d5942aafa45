// Package controlplane assembles netfork's kube-apiserver on upstream's
// k8s.io/kubernetes/pkg/controlplane (v1.37.1). Upstream's configuration,
// its Complete (discovery addresses, defaults, every endpoint reconciler
// netfork does not change) and its list of storage providers are used as they
// are; netfork replaces, by API group, the core provider (its Service storage)
// and the networking provider (ServiceCIDR checks, in-process IPAddress
// writes), and owns the controllers upstream's Instance starts with no seam:
// the kubernetes-Service controller and the default-ServiceCIDR controller,
// plus its own ServiceCIDR deletion controller. The lines that necessarily
// stand beside upstream's are listed in hack/upstream-shims.txt.
package controlplane
