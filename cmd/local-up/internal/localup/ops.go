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
)

// memberStatus is one apiserver in `local-up status`.
type memberStatus struct {
	Index    int      `json:"index"`
	State    string   `json:"state"`
	PID      int      `json:"pid,omitempty"`
	Endpoint string   `json:"endpoint"`
	Binary   string   `json:"binary"`
	Version  string   `json:"version"`
	Args     []string `json:"args"`
	Log      string   `json:"log"`
	Exit     string   `json:"exit,omitempty"`
	Starts   int      `json:"starts"`
}

// replaceRequest changes apiserver Index's binary and/or the flags after local-up's defaults.
type replaceRequest struct {
	Index  int       `json:"index"`
	Binary string    `json:"binary,omitempty"`
	Args   *[]string `json:"args,omitempty"`
}

// status lists every apiserver.
func (c *cluster) status() []memberStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []memberStatus
	for _, m := range c.members {
		s := memberStatus{
			Index: m.index, State: string(m.state), Endpoint: m.plan.endpoint, Binary: m.plan.binary,
			Version: m.plan.version, Args: m.plan.userArgs, Log: c.plan.layout.apiserverLog(m.index),
			Exit: m.exit, Starts: m.starts,
		}
		if m.proc != nil && !m.proc.Exited() {
			s.PID = m.proc.Pid()
		}
		out = append(out, s)
	}
	return out
}

// member returns apiserver i, or the error naming the indexes that exist.
func (c *cluster) member(i int) (*member, error) {
	if i < 0 || i >= len(c.members) {
		return nil, fmt.Errorf("apiserver %d does not exist: this local-up runs apiservers 0 to %d", i, len(c.members)-1)
	}
	return c.members[i], nil
}

// running tells whether m has a process that has not exited.
func (c *cluster) running(m *member) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return m.proc != nil && !m.proc.Exited()
}

// stopOne stops apiserver i gracefully and returns once it has exited.
func (c *cluster) stopOne(i int) (string, error) {
	c.ops.Lock()
	defer c.ops.Unlock()
	m, err := c.member(i)
	if err != nil {
		return "", err
	}
	if !c.running(m) {
		return "", fmt.Errorf("%s is not running (%s): nothing to stop", memberName(i), m.state)
	}
	c.stop(m)
	c.event("%s stopped on request", memberName(i))
	return fmt.Sprintf("%s stopped", memberName(i)), nil
}

// startOne starts a stopped or exited apiserver i and returns once it is ready.
func (c *cluster) startOne(ctx context.Context, i int) (string, error) {
	c.ops.Lock()
	defer c.ops.Unlock()
	m, err := c.member(i)
	if err != nil {
		return "", err
	}
	if c.running(m) {
		return "", fmt.Errorf("%s is already running (%s): use restart or replace", memberName(i), m.state)
	}
	return c.startAndWait(ctx, m)
}

// restartOne stops apiserver i if it runs and starts it again with the same binary and flags.
func (c *cluster) restartOne(ctx context.Context, i int) (string, error) {
	c.ops.Lock()
	defer c.ops.Unlock()
	m, err := c.member(i)
	if err != nil {
		return "", err
	}
	c.stop(m)
	return c.startAndWait(ctx, m)
}

// replaceOne checks the new binary and flags of apiserver i first, so a bad one changes
// nothing, then stops the old apiserver and starts the new one while the others serve.
func (c *cluster) replaceOne(ctx context.Context, r replaceRequest) (string, error) {
	c.ops.Lock()
	defer c.ops.Unlock()
	m, err := c.member(r.Index)
	if err != nil {
		return "", err
	}
	binary, userArgs := r.Binary, m.plan.userArgs
	if binary == "" {
		binary = m.plan.binary
	}
	if r.Args != nil {
		userArgs = *r.Args
	}
	next, err := c.plan.memberFor(r.Index, binary, userArgs)
	if err != nil {
		return "", err
	}
	if next.endpoint != m.plan.endpoint {
		return "", fmt.Errorf("replace may not move %s from %s to %s: keep --bind-address and --secure-port", memberName(r.Index), m.plan.endpoint, next.endpoint)
	}
	if next.version, err = checkAPIServer(ctx, next.binary, next.args); err != nil {
		return "", err
	}
	c.stop(m)
	c.mu.Lock()
	m.plan = next
	c.mu.Unlock()
	c.event("%s replaced: %s (%s), flags %q", memberName(r.Index), next.binary, next.version, next.userArgs)
	return c.startAndWait(ctx, m)
}

// startAndWait starts m and waits for its /readyz; a failure leaves it exited, reported.
func (c *cluster) startAndWait(ctx context.Context, m *member) (string, error) {
	if err := c.start(m); err != nil {
		return "", err
	}
	if err := c.waitReady(ctx, m); err != nil {
		if c.running(m) {
			c.stop(m) // Not ready in time: stop it rather than leave it half up.
		}
		c.mu.Lock()
		m.state, m.exit = stateExited, err.Error()
		c.mu.Unlock()
		return "", err
	}
	c.event("%s ready (%s)", memberName(m.index), m.plan.version)
	return fmt.Sprintf("%s ready at https://%s (%s)", memberName(m.index), m.plan.endpoint, m.plan.version), nil
}
