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

package localup

import (
	"fmt"
	"net"
	"strconv"

	"github.com/netfork/netfork/internal/pki"
)

const (
	// defaultServiceClusterIPRange is dual-stack so both families' allocators are exercised.
	defaultServiceClusterIPRange = "10.96.0.0/16,fd00:10:96::/108"
	// defaultServiceNodePortRange is upstream's default, spelled out so logs show it.
	defaultServiceNodePortRange = "30000-32767"
	// dualStackGate is netfork's KEP-2438 gate; with it on local-up advertises a pair.
	dualStackGate = "DualStackAPIServer"
	// frontAddress is where local-up's TCP front listens when it runs several
	// apiservers: outside 127.0.0.1-127.0.0.200, which the apiservers bind.
	frontAddress = "127.0.0.254"
)

// bindAddress gives apiserver i its own loopback address, 127.0.0.(i+1): every apiserver
// uses the same --secure-port because the lease endpoint reconciler writes one port for all
// endpoints of the kubernetes Service, so apiservers on different ports would make it flap;
// on Linux the whole 127.0.0.0/8 is loopback, so no setup is needed.
func bindAddress(i int) string {
	return fmt.Sprintf("127.0.0.%d", i+1)
}

// advertiseAddress gives apiserver i the address it publishes in the kubernetes Service,
// 198.18.0.(i+1): Endpoints may not hold loopback addresses, and 198.18.0.0/15 is the
// benchmarking range, to which local-up never sends traffic.
func advertiseAddress(i int) string {
	return fmt.Sprintf("198.18.0.%d", i+1)
}

// advertiseAddressV6 is apiserver i's IPv6 address in the kubernetes Service when it
// advertises a pair: fd6e:6574:6c75::(i+1), in a ULA /64 of netfork's choosing that
// cmd/local-up-netns does not use; local-up never sends traffic there either.
func advertiseAddressV6(i int) string {
	return fmt.Sprintf("fd6e:6574:6c75::%x", i+1)
}

// defaultArgs are local-up's flags for apiserver i; each one exists in upstream's
// kube-apiserver (cmd/kube-apiserver/app/options and k8s.io/apiserver's options), and
// everything else keeps upstream's defaults.
func defaultArgs(i, port int, etcdURL string, l layout, p pki.Paths) []string {
	args := []string{
		"--bind-address=" + bindAddress(i),
		"--secure-port=" + strconv.Itoa(port),
		"--advertise-address=" + advertiseAddress(i),
		"--etcd-servers=" + etcdURL,
		"--service-cluster-ip-range=" + defaultServiceClusterIPRange,
		"--service-node-port-range=" + defaultServiceNodePortRange,
		"--authorization-mode=Node,RBAC",
		"--allow-privileged=true",
		"--cert-dir=" + l.certDir,
	}
	return append(args, p.APIServerFlags()...)
}

// apiserverArgs puts the user's flags after local-up's defaults, so that the last
// occurrence, the user's, wins when kube-apiserver parses them. The default advertise
// address follows the service ranges the flags end up with (see defaultAdvertise).
func apiserverArgs(i, port int, etcdURL string, l layout, p pki.Paths, userArgs []string) []string {
	defaults := defaultArgs(i, port, etcdURL, l, p)
	effective := append(append([]string(nil), defaults...), userArgs...)
	if advertise := defaultAdvertise(i, effective); advertise != advertiseAddress(i) {
		for j, arg := range defaults {
			if arg == "--advertise-address="+advertiseAddress(i) {
				defaults[j] = "--advertise-address=" + advertise
			}
		}
	}
	return append(defaults, userArgs...)
}

// defaultAdvertise is apiserver i's advertise address for the effective flags args: of the
// primary service range's family, since the kubernetes Service publishes it under a
// ClusterIP of that family; with DualStackAPIServer on and a dual-stack service range, a
// pair, primary family first, so the kubernetes Service goes dual-stack (KEP-2438). The
// bind address stays on IPv4 loopback whatever the family: only 127.0.0.0/8 gives each
// apiserver a loopback address of its own, and the apiservers share one port.
func defaultAdvertise(i int, args []string) string {
	ranges := serviceRanges(args)
	primary, secondary := advertiseAddress(i), advertiseAddressV6(i)
	if len(ranges) > 0 && ranges[0].IP.To4() == nil {
		primary, secondary = secondary, primary
	}
	if len(ranges) == 2 && gateEnabled(args, dualStackGate) {
		return primary + "," + secondary
	}
	return primary
}

// frontIP is the front's address, which the serving cert names.
func frontIP() net.IP {
	return net.ParseIP(frontAddress)
}
