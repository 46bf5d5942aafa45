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
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/netfork/netfork/cmd/internal/tcpproxy"
	"github.com/netfork/netfork/internal/pki"
	"github.com/netfork/netfork/internal/proc"
)

const (
	// stopTimeout bounds an apiserver's graceful shutdown after SIGTERM before it is killed;
	// it covers a --shutdown-delay-duration of a few seconds plus draining.
	stopTimeout = 60 * time.Second
	// drainGrace is how long clients keep their connections through the front to a
	// stopping apiserver before the front ends them, as a load balancer drains a backend:
	// an apiserver waits up to --request-timeout (60 s) for open watch streams to go, so
	// without it every stop with a watch on the apiserver takes a minute.
	drainGrace = 5 * time.Second
)

// memberState is where an apiserver is in its life.
type memberState string

const (
	stateStarting memberState = "starting"
	stateReady    memberState = "ready"
	stateStopping memberState = "stopping"
	// stateStopped is an apiserver stopped on request (stop, or replace in progress).
	stateStopped memberState = "stopped"
	// stateExited is an apiserver that exited on its own; start restarts it.
	stateExited memberState = "exited"
)

// member is one apiserver local-up runs, stops, restarts and replaces.
type member struct {
	index int
	plan  memberPlan
	proc  *proc.Process
	state memberState
	// exit says why the apiserver last exited on its own.
	exit   string
	starts int
}

// name is how messages and logs name apiserver i.
func memberName(i int) string { return fmt.Sprintf("apiserver-%d", i) }

// cluster supervises the apiservers: an apiserver that exits on its own is reported and
// left for a restart, not taken as the end of local-up.
type cluster struct {
	plan   *plan
	paths  pki.Paths
	events io.Writer
	// ops serializes control operations; mu guards the members' fields.
	ops     sync.Mutex
	mu      sync.Mutex
	members []*member
	// up is set once every apiserver was ready the first time; before that an exit is
	// local-up's start-up error, not an event.
	up bool
	// front relays clients to the apiservers when there are several; nil otherwise.
	front *tcpproxy.Proxy
}

// newCluster prepares one member per planned apiserver, none started.
func newCluster(p *plan, paths pki.Paths, events io.Writer) *cluster {
	c := &cluster{plan: p, paths: paths, events: events}
	for i, m := range p.members {
		c.members = append(c.members, &member{index: i, plan: m, state: stateStopped})
	}
	return c
}

// event reports something that happened to the cluster on local-up's stderr.
func (c *cluster) event(format string, args ...any) {
	progress(c.events, format, args...)
}

// configFor is a client of the apiserver at endpoint, as the admin, trusting the local CA.
func (c *cluster) configFor(endpoint string) *rest.Config {
	return &rest.Config{
		Host:            "https://" + endpoint,
		TLSClientConfig: rest.TLSClientConfig{CAFile: c.paths.CACert, CertFile: c.paths.AdminCert, KeyFile: c.paths.AdminKey},
	}
}

// start runs m's planned binary and flags; its log gets each later run appended, so a
// crash's reason survives a restart.
func (c *cluster) start(m *member) error {
	spec := proc.Spec{
		Name:      memberName(m.index),
		Path:      m.plan.binary,
		Args:      m.plan.args,
		LogPath:   c.plan.layout.apiserverLog(m.index),
		LogHeader: fmt.Sprintf("local-up: %s %q", m.plan.binary, m.plan.args),
		Append:    m.starts > 0,
	}
	p, err := proc.Start(spec)
	if err != nil {
		return err
	}
	c.mu.Lock()
	m.proc, m.state, m.exit = p, stateStarting, ""
	m.starts++
	c.mu.Unlock()
	go c.watch(m, p)
	return nil
}

// watch records an exit nobody asked for and reports it once the cluster is up.
func (c *cluster) watch(m *member, p *proc.Process) {
	<-p.Done()
	if p.Stopping() {
		return
	}
	why := p.ExitError().Error()
	c.mu.Lock()
	current, up := m.proc == p, c.up
	if current {
		m.state, m.exit = stateExited, why
	}
	c.mu.Unlock()
	if current && up {
		c.event("%s; restart it with: local-up start --data-dir %s %d", why, c.plan.layout.dataDir, m.index)
	}
}

// waitReady waits for m's /readyz, failing when it exits first or the ready timeout passes.
func (c *cluster) waitReady(ctx context.Context, m *member) error {
	c.mu.Lock()
	p, endpoint := m.proc, m.plan.endpoint
	c.mu.Unlock()
	err := proc.WaitReady(ctx, c.configFor(endpoint), proc.ExitsOn(p), proc.Timeout(c.plan.opts.ReadyTimeout))
	if err != nil {
		if !p.Exited() {
			return fmt.Errorf("%s: %w (log: %s)", memberName(m.index), err, p.LogPath())
		}
		return err
	}
	c.mu.Lock()
	if m.proc == p && m.state == stateStarting {
		m.state = stateReady
	}
	c.mu.Unlock()
	return nil
}

// startAll starts every apiserver and waits until all are ready, failing on the first
// that exits or is not ready in time.
func (c *cluster) startAll(ctx context.Context) error {
	for _, m := range c.members {
		if err := c.start(m); err != nil {
			return err
		}
	}
	errs := make(chan error, len(c.members))
	for _, m := range c.members {
		go func() { errs <- c.waitReady(ctx, m) }()
	}
	var first error
	for range c.members {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	c.mu.Lock()
	c.up = true
	c.mu.Unlock()
	return nil
}

// stop stops m gracefully (SIGKILL after stopTimeout) and returns once it has exited.
func (c *cluster) stop(m *member) {
	c.mu.Lock()
	p := m.proc
	if p == nil || p.Exited() {
		c.mu.Unlock()
		return
	}
	m.state = stateStopping
	front, endpoint := c.front, m.plan.endpoint
	c.mu.Unlock()
	p.Terminate()
	select {
	case <-p.Done():
	case <-time.After(drainGrace):
		if front != nil {
			if n := front.CloseTo(endpoint); n > 0 {
				c.event("%s still stopping after %s: closed its %d client connection(s) through the front", memberName(m.index), drainGrace, n)
			}
		}
	}
	if killed := p.Stop(stopTimeout); killed {
		c.event("%s did not stop within %s of SIGTERM; killed it", memberName(m.index), stopTimeout)
	}
	c.mu.Lock()
	if m.proc == p {
		m.state = stateStopped
	}
	c.mu.Unlock()
}

// stopAll stops every apiserver at once, so nothing outlives local-up.
func (c *cluster) stopAll() {
	c.mu.Lock()
	var procs []*proc.Process
	for _, m := range c.members {
		if m.proc != nil {
			procs = append(procs, m.proc)
		}
	}
	c.mu.Unlock()
	proc.StopAll(procs, stopTimeout)
}

// readyEndpoints are the endpoints of the apiservers that are ready, for the front.
func (c *cluster) readyEndpoints() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var eps []string
	for _, m := range c.members {
		if m.state == stateReady {
			eps = append(eps, m.plan.endpoint)
		}
	}
	return eps
}
