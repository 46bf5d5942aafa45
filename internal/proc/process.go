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
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Spec says what to run and where its output goes.
type Spec struct {
	// Name identifies the child in messages, e.g. "apiserver-0".
	Name string
	// Path is the executable; Args its arguments, without the program name.
	Path string
	Args []string
	// LogPath receives the child's stdout and stderr; it is truncated first unless Append.
	LogPath string
	Append  bool
	// LogHeader, when set, is written as the log's first line, e.g. the command line.
	LogHeader string
	// Dir is the working directory, Env the environment; empty means the caller's.
	Dir string
	Env []string
}

// Process is a running or exited child.
type Process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	// done is closed once the process has exited; err then says how.
	done chan struct{}
	err  error
	// stopping is set once Stop was called, so an exit can be told from a crash.
	stopMu   sync.Mutex
	stopping bool
}

// SysProcAttr puts a child in its own process group, so a terminal's Ctrl-C
// reaches only its parent, which then stops it in order, and has the kernel
// SIGKILL it if the parent dies without doing so.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// Start runs spec's command with its output in spec.LogPath.
func Start(spec Spec) (*Process, error) {
	mode := os.O_TRUNC
	if spec.Append {
		mode = os.O_APPEND
	}
	logFile, err := os.OpenFile(spec.LogPath, os.O_CREATE|os.O_WRONLY|mode, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	if spec.LogHeader != "" {
		fmt.Fprintln(logFile, spec.LogHeader)
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Dir, cmd.Env = spec.Dir, spec.Env
	cmd.SysProcAttr = SysProcAttr()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("%s: starting %s: %w", spec.Name, spec.Path, err)
	}
	p := &Process{name: spec.Name, logPath: spec.LogPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// Name is the child's name in messages.
func (p *Process) Name() string { return p.name }

// LogPath is where the child's output goes.
func (p *Process) LogPath() string { return p.logPath }

// Pid is the child's process ID, which is also its process group's.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the child has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err says how the child exited (nil for status 0); valid once Done is closed.
func (p *Process) Err() error {
	<-p.done
	return p.err
}

// Exited reports whether the child has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stopping reports whether Stop was called, so an exit is expected.
func (p *Process) Stopping() bool {
	p.stopMu.Lock()
	defer p.stopMu.Unlock()
	return p.stopping
}

// signalGroup sends sig to the child's whole process group.
func (p *Process) signalGroup(sig syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, sig) // The group may already be gone.
}

// Terminate sends SIGTERM to the child's process group without waiting.
func (p *Process) Terminate() {
	p.stopMu.Lock()
	p.stopping = true
	p.stopMu.Unlock()
	p.signalGroup(syscall.SIGTERM)
}

// Stop sends SIGTERM to the child's process group, SIGKILL once timeout has
// passed, and returns once the child has exited; killed reports whether SIGKILL
// was needed. Anything the child left in its group is killed too.
func (p *Process) Stop(timeout time.Duration) (killed bool) {
	p.Terminate()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	select {
	case <-p.done:
	case <-deadline.C:
		killed = true
		p.signalGroup(syscall.SIGKILL)
		<-p.done
	}
	p.signalGroup(syscall.SIGKILL) // Reap anything the child itself left in its group.
	return killed
}

// StopAll stops every process at once, SIGKILL after timeout, and returns once
// all have exited.
func StopAll(procs []*Process, timeout time.Duration) {
	var wg sync.WaitGroup
	for _, p := range procs {
		if p == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Stop(timeout)
		}()
	}
	wg.Wait()
}

// ExitError explains an exit with the line of the child's log that says why,
// e.g. "apiserver-0 stopped (exit status 1): unrecognized feature gate: X (log: ...)".
// A child killed by a signal it did not ask for is not explained by its log, so
// that exit names only the signal.
func (p *Process) ExitError() error {
	err := p.Err()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Errorf("%s stopped (%v) (log: %s)", p.name, err, p.logPath)
		}
	}
	status := "exited"
	if err != nil {
		status = err.Error()
	}
	return fmt.Errorf("%s stopped (%s): %s (log: %s)", p.name, status, Explain(p.logPath), p.logPath)
}
