// Package rest is netfork's networking.k8s.io storage provider. It is
// upstream's (k8s.io/kubernetes/pkg/registry/networking/rest, v1.37.1) with one
// change: ServiceCIDRs netfork's ClusterIP allocator cannot index are refused at
// validation. Upstream's validation accepts a /0 of either family and IPv6
// prefixes shorter than /64, which upstream's own allocator then ignores; a
// ServiceCIDR that can never hand out an address, or covers the whole address
// space, is an error the user should see when creating it, not a silent no-op.
package rest
