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

package main

import (
	"strconv"

	"github.com/netfork/netfork/internal/pki"
)

const (
	// serviceCIDR is kubeadm's default Service range and the largest IPv4 range upstream
	// accepts, so the default range never fills (30k Services are 3% of it) and the legacy
	// bitmap is as large (128 KiB) as real clusters carry; single-stack keeps every
	// contender comparable.
	serviceCIDR = "10.96.0.0/12"
	// kubernetesServiceIP is the first address of serviceCIDR, which the kubernetes Service gets.
	kubernetesServiceIP = "10.96.0.1"
	// nodePortRange starts at upstream's default but holds 32768 ports rather than 2768:
	// half of 30k Services are 15000 NodePorts, and a range under half full keeps the run
	// about allocation rather than about searching a nearly full range. No kube-proxy
	// runs, so nothing binds these ports.
	nodePortRange = "30000-62767"
	// nodePortBase and nodePortCapacity describe nodePortRange.
	nodePortBase, nodePortCapacity = 30000, 62767 - 30000 + 1
	// maxNodePorts is as many NodePorts as a run allocates: half the range, which 2*16384
	// Services reach; a larger run (up to 100k) adds ClusterIP Services only.
	maxNodePorts = nodePortCapacity / 2
	// advertiseAddress is in the benchmarking range 198.18.0.0/15, never dialed, since
	// the apiserver needs an address to publish and no endpoint reconciler runs.
	advertiseAddress = "198.18.0.1"
)

// apiserverArgs are the flags every contender's kube-apiserver runs with; only
// --feature-gates differs between contenders, and only for netfork's binary.
func apiserverArgs(c contender, etcdURL string, port int, p pki.Paths, certDir string) []string {
	args := []string{
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--advertise-address=" + advertiseAddress,
		"--etcd-servers=" + etcdURL,
		"--service-cluster-ip-range=" + serviceCIDR,
		"--service-node-port-range=" + nodePortRange,
		"--authorization-mode=Node,RBAC",
		"--cert-dir=" + certDir,
		// Endpoints may not hold the loopback address the apiserver serves on.
		"--endpoint-reconciler-type=none",
		"--profiling=true",
	}
	args = append(args, p.APIServerFlags()...)
	if c.featureGates != "" {
		args = append(args, "--feature-gates="+c.featureGates)
	}
	return args
}
