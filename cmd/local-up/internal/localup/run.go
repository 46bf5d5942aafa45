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
// the cluster up until ctx ends (a clean stop, nil) or a component fails (an error); in
// both cases nothing it started is left running.
func Run(ctx context.Context, o *Options, start time.Time, stdout, stderr io.Writer) error {
	p, err := newPlan(ctx, o)
	if err != nil {
		return err
	}
	progress(stderr, "using %s (%s)", p.binary, p.version)
	return p.run(ctx, start, stdout, stderr)
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

	exited := make(chan *child, len(p.args))
	var children []*child
	defer func() {
		progress(stderr, "stopping")
		stopChildren(children, stopTimeout)
	}()
	for i, args := range p.args {
		c, err := startChild(fmt.Sprintf("apiserver-%d", i), p.binary, args, p.layout.apiserverLog(i), exited)
		if err != nil {
			return err
		}
		children = append(children, c)
	}
	progress(stderr, "started %d apiserver(s), logs in %s", len(children), p.layout.logDir)

	client, err := readyClient(certs)
	if err != nil {
		return err
	}
	if err := waitReady(ctx, client, children, p.endpoints, p.opts.ReadyTimeout, exited); err != nil {
		return err
	}
	if err := pki.WriteKubeconfig(p.layout.kubeconfig, "https://"+p.endpoints[0], certs); err != nil {
		return err
	}
	fmt.Fprintln(stdout, p.readyLine(time.Since(start)))

	select {
	case <-ctx.Done():
		return nil
	case c := <-exited:
		return c.exitError()
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
	at := "https://" + p.endpoints[0]
	if n := len(p.endpoints); n > 1 {
		at += " .. https://" + p.endpoints[n-1]
	}
	return fmt.Sprintf("local-up: ready in %.1fs: %d apiserver(s) at %s; kubeconfig: %s",
		elapsed.Seconds(), len(p.endpoints), at, filepath.Join(p.opts.DataDir, "kubeconfig"))
}

// progress reports a step on stderr, keeping stdout for the ready line.
func progress(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "local-up: "+format+"\n", args...)
}
