package localup

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"

	certutil "k8s.io/client-go/util/cert"

	"github.com/netfork/netfork/internal/pki"
)

// plan is everything local-up decided before touching the data dir.
type plan struct {
	opts    *Options
	binary  string
	version string
	layout  layout
	// identity is the existing cluster's, or nil when local-up creates a new one.
	identity                     *identity
	etcdClientPort, etcdPeerPort int
	pkiPaths                     pki.Paths
	args                         [][]string
	endpoints                    []string
	servingSANs                  certutil.AltNames
}

// newPlan checks every input, reading but never writing: the binary and its flags, the
// data dir's owner, and every address local-up is about to listen on.
func newPlan(ctx context.Context, o *Options) (*plan, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	binary, err := resolveBinary(o.APIServerBinary)
	if err != nil {
		return nil, err
	}
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return nil, fmt.Errorf("--data-dir %s: %w", o.DataDir, err)
	}
	p := &plan{opts: o, binary: binary, layout: newLayout(dataDir), pkiPaths: pki.PathsIn(filepath.Join(dataDir, "pki"))}
	if o.Clean {
		err = checkCleanable(p.layout)
	} else {
		p.identity, err = checkDataDir(p.layout)
	}
	if err != nil {
		return nil, err
	}
	if err := p.pickEtcdPorts(); err != nil {
		return nil, err
	}
	if err := p.assembleArgs(); err != nil {
		return nil, err
	}
	if err := p.checkPorts(); err != nil {
		return nil, err
	}
	if p.version, err = checkFlags(ctx, binary, p.args[0]); err != nil {
		return nil, err
	}
	return p, nil
}

// pickEtcdPorts reuses the recorded etcd ports, so the cluster keeps its etcd endpoints,
// or picks two free ones for a new cluster.
func (p *plan) pickEtcdPorts() error {
	if p.identity != nil && p.identity.Etcd != nil {
		p.etcdClientPort, p.etcdPeerPort = p.identity.Etcd.ClientPort, p.identity.Etcd.PeerPort
		return nil
	}
	ports, err := freeLoopbackPorts(2)
	if err != nil {
		return err
	}
	p.etcdClientPort, p.etcdPeerPort = ports[0], ports[1]
	return nil
}

// etcdURL is where the apiservers reach the embedded etcd.
func (p *plan) etcdURL() string {
	return "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(p.etcdClientPort))
}

// assembleArgs builds every apiserver's arguments and derives from them where each one
// serves and which SANs the serving cert needs.
func (p *plan) assembleArgs() error {
	var extraIPs []net.IP
	seen := map[string]int{}
	for i := 0; i < p.opts.APIServers; i++ {
		args := apiserverArgs(i, p.opts.Port, p.etcdURL(), p.layout, p.pkiPaths, p.opts.APIServerArgs)
		ep, err := endpoint(args)
		if err != nil {
			return fmt.Errorf("kube-apiserver flags after --: %w", err)
		}
		if j, dup := seen[ep]; dup {
			return fmt.Errorf("apiservers %d and %d would both serve on %s: do not override --bind-address after -- when --apiservers > 1", j, i, ep)
		}
		seen[ep] = i
		host, _, _ := net.SplitHostPort(ep)
		extraIPs = append(extraIPs, net.ParseIP(host), advertiseIP(args))
		p.args = append(p.args, args)
		p.endpoints = append(p.endpoints, ep)
	}
	p.servingSANs = pki.DefaultServingSANs(serviceIPs(p.args[0]), extraIPs)
	return nil
}

// checkPorts fails on the first address local-up needs that something already listens on.
func (p *plan) checkPorts() error {
	for i, ep := range p.endpoints {
		if err := checkFree(ep, fmt.Sprintf("apiserver %d", i), "pick another --port or stop what listens there"); err != nil {
			return err
		}
	}
	if p.identity == nil || p.identity.Etcd == nil {
		return nil
	}
	recorded := "recorded in " + p.layout.identity
	remedy := "stop what listens there (another local-up on this --data-dir?) or use --clean"
	for _, port := range []int{p.etcdClientPort, p.etcdPeerPort} {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if err := checkFree(addr, "etcd, "+recorded, remedy); err != nil {
			return err
		}
	}
	return nil
}

// freeLoopbackPorts asks the kernel for n distinct free ports on 127.0.0.1.
func freeLoopbackPorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port for etcd: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
