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

package proc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

const (
	// defaultReadyInterval is short because an apiserver is ready seconds after etcd is.
	defaultReadyInterval = 250 * time.Millisecond
	// readyRequestTimeout bounds one /readyz request when the config sets no timeout.
	readyRequestTimeout = 2 * time.Second
)

// readyOptions tune WaitReady.
type readyOptions struct {
	interval time.Duration
	timeout  time.Duration
	exits    []exitWatch
	checks   []func(context.Context) error
}

// exitWatch ends the wait early: once done is closed, why says what failed.
type exitWatch struct {
	done <-chan struct{}
	why  func() error
}

// ReadyOption tunes WaitReady.
type ReadyOption func(*readyOptions)

// Interval sets how often /readyz is polled.
func Interval(d time.Duration) ReadyOption {
	return func(o *readyOptions) { o.interval = d }
}

// Timeout bounds the whole wait; the error then names it.
func Timeout(d time.Duration) ReadyOption {
	return func(o *readyOptions) { o.timeout = d }
}

// ExitsOn fails the wait as soon as p exits, with p's ExitError.
func ExitsOn(p *Process) ReadyOption {
	return FailsOn(p.Done(), p.ExitError)
}

// FailsOn fails the wait as soon as done is closed, with why's error: for
// servers that are not a Process, e.g. in-process apiservers in tests.
func FailsOn(done <-chan struct{}, why func() error) ReadyOption {
	return func(o *readyOptions) { o.exits = append(o.exits, exitWatch{done: done, why: why}) }
}

// AlsoWaitFor adds a condition that must hold once /readyz is ok, e.g. that the
// kubernetes Service has its ClusterIP; its error says what is still missing.
func AlsoWaitFor(check func(context.Context) error) ReadyOption {
	return func(o *readyOptions) { o.checks = append(o.checks, check) }
}

// WaitReady polls the apiserver config names until /readyz returns ok and every
// AlsoWaitFor condition holds. It fails early when a watched process exits, and
// with the last reason (the failed /readyz checks) when the timeout passes;
// when ctx ends first it returns ctx's error.
func WaitReady(ctx context.Context, config *rest.Config, opts ...ReadyOption) error {
	o := readyOptions{interval: defaultReadyInterval}
	for _, opt := range opts {
		opt(&o)
	}
	config = rest.CopyConfig(config)
	if config.Timeout == 0 {
		config.Timeout = readyRequestTimeout
	}
	config.QPS = -1 // A poll is not a client to throttle; a limiter would only add its own errors.
	dc, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return fmt.Errorf("client for %s: %w", config.Host, err)
	}
	waitCtx, cancel := ctx, context.CancelFunc(func() {})
	if o.timeout > 0 {
		waitCtx, cancel = context.WithTimeout(ctx, o.timeout)
	}
	defer cancel()
	ticker := time.NewTicker(o.interval)
	defer ticker.Stop()
	why := "no answer yet"
	for {
		got := notReady(waitCtx, dc.RESTClient(), o.checks)
		if got == "" {
			return nil
		}
		if waitCtx.Err() == nil {
			why = got // A probe the deadline cut short says less than the one before.
		}
		for _, e := range o.exits {
			select {
			case <-e.done:
				return e.why()
			default:
			}
		}
		select {
		case <-waitCtx.Done():
			if ctx.Err() != nil || !errors.Is(waitCtx.Err(), context.DeadlineExceeded) {
				return ctx.Err()
			}
			return fmt.Errorf("%s not ready after %s: %s", config.Host, o.timeout, why)
		case <-ticker.C:
		}
	}
}

// notReady returns "" when /readyz is ok and every check holds, else why not.
func notReady(ctx context.Context, client rest.Interface, checks []func(context.Context) error) string {
	body, err := client.Get().AbsPath("/readyz").Param("verbose", "true").DoRaw(ctx)
	if err != nil {
		if failed := FailedChecks(string(body)); failed != "" {
			return "/readyz: " + failed
		}
		return "/readyz: " + err.Error()
	}
	for _, check := range checks {
		if err := check(ctx); err != nil {
			return err.Error()
		}
	}
	return ""
}

// FailedChecks summarizes a /readyz?verbose body by its failed checks, e.g.
// "[-]poststarthook/rbac/bootstrap-roles failed: reason withheld", or "" when
// it lists none.
func FailedChecks(body string) string {
	var failed []string
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "[-]") {
			failed = append(failed, strings.TrimSpace(line))
		}
	}
	return strings.Join(failed, ", ")
}
