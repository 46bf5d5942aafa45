package localup

import (
	"fmt"
	"strconv"

	"github.com/netfork/netfork/internal/pki"
)

const (
	// defaultServiceClusterIPRange is dual-stack so both families' allocators are exercised.
	defaultServiceClusterIPRange = "10.96.0.0/16,fd00:10:96::/108"
	// defaultServiceNodePortRange is upstream's default, spelled out so logs show it.
	defaultServiceNodePortRange = "30000-32767"
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
// occurrence, the user's, wins when kube-apiserver parses them.
func apiserverArgs(i, port int, etcdURL string, l layout, p pki.Paths, userArgs []string) []string {
	return append(defaultArgs(i, port, etcdURL, l, p), userArgs...)
}
