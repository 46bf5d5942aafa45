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

package cluster

import (
	"strconv"

	"github.com/netfork/netfork/internal/pki"

	"github.com/netfork/netfork/test/bench/internal/ranges"
)

// advertiseAddress is in the benchmarking range 198.18.0.0/15, never dialed, since the
// apiserver needs an address to publish and no endpoint reconciler runs.
const advertiseAddress = "198.18.0.1"

// apiserverArgs are the flags every contender's kube-apiserver runs with; only
// --feature-gates differs between contenders, and only for netfork's binary.
func apiserverArgs(featureGates, etcdURL string, port int, p pki.Paths, certDir string) []string {
	args := []string{
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--advertise-address=" + advertiseAddress,
		"--etcd-servers=" + etcdURL,
		"--service-cluster-ip-range=" + ranges.ServiceCIDR,
		"--service-node-port-range=" + ranges.NodePortRange,
		"--authorization-mode=Node,RBAC",
		"--cert-dir=" + certDir,
		// Endpoints may not hold the loopback address the apiserver serves on.
		"--endpoint-reconciler-type=none",
		"--profiling=true",
	}
	args = append(args, p.APIServerFlags()...)
	if featureGates != "" {
		args = append(args, "--feature-gates="+featureGates)
	}
	return args
}
