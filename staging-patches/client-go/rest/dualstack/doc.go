// Package dualstack lets a client in a "wrong-single-stack" pod reach the
// apiserver of a dual-stack cluster (KEP-2438, which upstream never
// implemented). It stands in for InClusterConfig of k8s.io/client-go/rest at
// v0.37.1.
//
// Upstream's InClusterConfig always dials KUBERNETES_SERVICE_HOST, the
// kubernetes Service's primary-family ClusterIP, so a pod that has addresses
// of the cluster's secondary family only (an IPv4-only node in an
// IPv6-primary cluster, say) cannot reach the apiserver even when the
// Service is dual-stack. The KEP rules out changing KUBERNETES_SERVICE_HOST
// or adding variables; InClusterConfig here keeps upstream's configuration
// (token, CA, TLS) and only changes the host, and only when the pod has no
// address of the primary family: then it dials the Service's address of the
// family the pod has, found by resolving kubernetes.default.svc.
package dualstack
