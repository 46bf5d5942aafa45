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
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/netfork/netfork/internal/etcd"
	"github.com/netfork/netfork/internal/pki"
)

// Run checks o, starts etcd and the apiservers, prints the ready line on stdout and keeps
// the cluster up until ctx ends (a clean stop, nil) or etcd fails (an error); in both
// cases nothing it started is left running. An apiserver that exits after the start is
// reported and can be started again; it does not end local-up.
func Run(ctx context.Context, o *Options, start time.Time, stdout, stderr io.Writer) error {
	p, err := newPlan(ctx, o)
	if err != nil {
		return err
	}
	p.reportBinaries(stderr)
	return p.run(ctx, start, stdout, stderr)
}

// reportBinaries names each binary local-up runs and its version line.
func (p *plan) reportBinaries(w io.Writer) {
	first := p.members[0]
	progress(w, "using %s (%s)", first.binary, first.version)
	for i, m := range p.members[1:] {
		if m.binary != first.binary {
			progress(w, "apiserver %d uses %s (%s)", i+1, m.binary, m.version)
		}
	}
}

// run carries out a checked plan.
func (p *plan) run(ctx context.Context, start time.Time, stdout, stderr io.Writer) error {
	id, err := p.prepareDataDir()
	if err != nil {
		return err
	}
	certs, err := pki.Ensure(p.layout.pkiDir, p.servingSANs)
	if err != nil {
		return err
	}
	server, err := p.startEtcd(ctx, id)
	if err != nil {
		return err
	}
	defer server.Stop()
	progress(stderr, "etcd ready at %s", server.ClientURL)

	c := newCluster(p, certs.Paths, stderr)
	defer func() {
		progress(stderr, "stopping")
		c.stopAll()
	}()
	progress(stderr, "starting %d apiserver(s), logs in %s", len(c.members), p.layout.logDir)
	if err := c.startAll(ctx); err != nil {
		return err
	}
	server0 := "https://" + p.members[0].endpoint
	if p.front != "" {
		f, err := startFront(p.front, c.readyEndpoints)
		if err != nil {
			return fmt.Errorf("local-up's front on %s: %w", p.front, err)
		}
		defer f.Close()
		c.mu.Lock()
		c.front = f
		c.mu.Unlock()
		server0 = "https://" + p.front
	}
	if err := pki.WriteKubeconfig(p.layout.kubeconfig, server0, certs); err != nil {
		return err
	}
	control, err := serveControl(ctx, p.layout.socket, c)
	if err != nil {
		return err
	}
	defer control.close()
	fmt.Fprintln(stdout, p.readyLine(time.Since(start)))

	select {
	case <-ctx.Done():
		return nil
	case err := <-server.Err():
		return fmt.Errorf("etcd failed (log: %s): %w", p.layout.etcdLog(), err)
	}
}

// prepareDataDir wipes the dir if asked, creates it and records the cluster identity before
// anything else is written, so a dir local-up wrote to is always recognizably its own.
func (p *plan) prepareDataDir() (*identity, error) {
	if p.opts.Clean {
		if err := clean(p.layout); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(p.layout.logDir, 0o755); err != nil {
		return nil, fmt.Errorf("--data-dir: %w", err)
	}
	if p.identity != nil {
		return p.identity, nil
	}
	id := newIdentity()
	if err := writeIdentity(p.layout.identity, id); err != nil {
		return nil, err
	}
	return id, nil
}

// startEtcd starts etcd on the planned ports and records its identity, so a restart
// finds the same member at the same address.
func (p *plan) startEtcd(ctx context.Context, id *identity) (*etcd.Server, error) {
	server, err := etcd.Start(ctx, etcd.Config{
		DataDir:      p.layout.etcdDir,
		ClientPort:   p.etcdClientPort,
		PeerPort:     p.etcdPeerPort,
		ClusterToken: id.ClusterID,
		LogLevel:     p.opts.EtcdLogLevel,
		LogFile:      p.layout.etcdLog(),
	})
	if err != nil {
		return nil, err
	}
	id.Etcd = &etcdIdentity{ClusterID: server.ClusterID, ClientPort: p.etcdClientPort, PeerPort: p.etcdPeerPort}
	if err := writeIdentity(p.layout.identity, id); err != nil {
		server.Stop()
		return nil, err
	}
	return server, nil
}

// readyLine is the one line on stdout telling the user the cluster is up and how to use it.
func (p *plan) readyLine(elapsed time.Duration) string {
	n := len(p.members)
	at := "https://" + p.members[0].endpoint
	if n > 1 {
		at += " .. https://" + p.members[n-1].endpoint + ", front https://" + p.front
	}
	return fmt.Sprintf("local-up: ready in %.1fs: %d apiserver(s) at %s; kubeconfig: %s",
		elapsed.Seconds(), n, at, filepath.Join(p.opts.DataDir, "kubeconfig"))
}

// progress reports a step on stderr, keeping stdout for the ready line.
func progress(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "local-up: "+format+"\n", args...)
}
