/*
Copyright 2026 The netfork Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

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
