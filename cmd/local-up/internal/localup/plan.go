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
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	certutil "k8s.io/client-go/util/cert"

	"github.com/netfork/netfork/internal/pki"
)

// plan is everything local-up decided before touching the data dir.
type plan struct {
	opts   *Options
	layout layout
	// identity is the existing cluster's, or nil when local-up creates a new one.
	identity                     *identity
	etcdClientPort, etcdPeerPort int
	pkiPaths                     pki.Paths
	members                      []memberPlan
	// front is the host:port of the TCP front, or "" with one apiserver.
	front       string
	servingSANs certutil.AltNames
}

// memberPlan is one apiserver: what runs and where it serves.
type memberPlan struct {
	binary, version string
	// userArgs follow local-up's defaults in args; a replace changes them.
	userArgs []string
	args     []string
	endpoint string
}

// newPlan checks every input, reading but never writing: the binaries and their flags,
// the data dir's owner, and every address local-up is about to listen on.
func newPlan(ctx context.Context, o *Options) (*plan, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return nil, fmt.Errorf("--data-dir %s: %w", o.DataDir, err)
	}
	p := &plan{opts: o, layout: newLayout(dataDir), pkiPaths: pki.PathsIn(filepath.Join(dataDir, "pki"))}
	if err := p.layout.checkSocketPath(); err != nil {
		return nil, err
	}
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
	if err := p.assembleMembers(); err != nil {
		return nil, err
	}
	if err := p.checkPorts(); err != nil {
		return nil, err
	}
	if err := p.checkBinaries(ctx); err != nil {
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

// memberFor plans apiserver i with binary flag value binary and userArgs after the defaults.
func (p *plan) memberFor(i int, binary string, userArgs []string) (memberPlan, error) {
	path, err := resolveBinary(binary)
	if err != nil {
		return memberPlan{}, err
	}
	args := apiserverArgs(i, p.opts.Port, p.etcdURL(), p.layout, p.pkiPaths, userArgs)
	ep, err := endpoint(args)
	if err != nil {
		return memberPlan{}, fmt.Errorf("kube-apiserver flags of apiserver %d: %w", i, err)
	}
	return memberPlan{binary: path, userArgs: userArgs, args: args, endpoint: ep}, nil
}

// assembleMembers builds every apiserver's arguments and derives from them where each one
// serves and which SANs the serving cert needs.
func (p *plan) assembleMembers() error {
	var extraIPs []net.IP
	seen := map[string]int{}
	for i := 0; i < p.opts.APIServers; i++ {
		m, err := p.memberFor(i, p.opts.binaryFor(i), p.opts.userArgsFor(i))
		if err != nil {
			return err
		}
		if j, dup := seen[m.endpoint]; dup {
			return fmt.Errorf("apiservers %d and %d would both serve on %s: do not override --bind-address after -- when --apiservers > 1", j, i, m.endpoint)
		}
		seen[m.endpoint] = i
		host, _, _ := net.SplitHostPort(m.endpoint)
		extraIPs = append(append(append(extraIPs, net.ParseIP(host)), bindIPs(m.args)...), advertiseIPs(m.args)...)
		p.members = append(p.members, m)
	}
	if len(p.members) > 1 {
		p.front = net.JoinHostPort(frontAddress, strconv.Itoa(p.opts.Port))
		extraIPs = append(extraIPs, frontIP())
	}
	p.servingSANs = pki.DefaultServingSANs(serviceIPs(p.members[0].args), extraIPs)
	return nil
}

// checkBinaries runs each distinct binary and flag set once with --version, so a binary
// that is not a kube-apiserver or rejects its flags fails before anything starts.
func (p *plan) checkBinaries(ctx context.Context) error {
	versions := map[string]string{}
	for i := range p.members {
		m := &p.members[i]
		key := m.binary + "\x00" + strings.Join(m.userArgs, "\x00")
		if v, ok := versions[key]; ok {
			m.version = v
			continue
		}
		v, err := checkAPIServer(ctx, m.binary, m.args)
		if err != nil {
			if len(p.members) > 1 {
				return fmt.Errorf("apiserver %d: %w", i, err)
			}
			return err
		}
		versions[key], m.version = v, v
	}
	return nil
}

// checkPorts fails on the first address local-up needs that something already listens on.
func (p *plan) checkPorts() error {
	for i, m := range p.members {
		if err := checkFree(m.endpoint, fmt.Sprintf("apiserver %d", i), "pick another --port or stop what listens there"); err != nil {
			return err
		}
	}
	if p.front != "" {
		if err := checkFree(p.front, "local-up's front", "pick another --port or stop what listens there"); err != nil {
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
