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

// Command local-up-netns runs netfork's dual-stack control plane across network
// namespaces that hack/local-up-netns.sh made: one netfork kube-apiserver per
// namespace ("host"), bound and advertised on the host's IPv4 and IPv6 address
// with DualStackAPIServer=true, all on one embedded etcd in this process.
//
// It is cmd/local-up for several hosts: local-up's apiservers share the root
// namespace's loopback, these each have a namespace of their own, so the
// kubernetes Service's endpoints are addresses that other hosts really reach.
// This process stays in the root namespace and reaches into the hosts through
// OS threads that joined their namespace (setns): each host gets a listener on
// its own 127.0.0.1:2379 that forwards to etcd, and the root namespace gets a
// loopback listener that forwards to the first host's apiserver, which the
// kubeconfig names, so kubectl and the e2e suite work from the root namespace.
//
// It prints one ready line on stdout and runs until SIGINT or SIGTERM; then,
// or when a component fails, it stops every apiserver by its PID and etcd.
// It writes <data-dir>/hosts.json for test/e2e: each host's namespace,
// addresses and PID, the port, the CA and the kubernetes Service's ClusterIPs.
package main
