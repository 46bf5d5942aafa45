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

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/netfork/netfork/internal/proc"
)

// localUp is the local-up the harness runs and drives through its subcommands.
type localUp struct {
	binary, dataDir string
	port            int
	proc            *proc.Process
	binaries        map[string]string
}

// apiserverStatus is one entry of `local-up status --output json`.
type apiserverStatus struct {
	Index   int      `json:"index"`
	State   string   `json:"state"`
	Binary  string   `json:"binary"`
	Version string   `json:"version"`
	Args    []string `json:"args"`
	Exit    string   `json:"exit"`
	Starts  int      `json:"starts"`
}

// start runs local-up with members, wiping dataDir first, and waits for its ready line.
func (l *localUp) start(ctx context.Context, members [3]member) error {
	args := []string{"--clean", "--data-dir", l.dataDir, "--port", fmt.Sprint(l.port), "--apiservers", "3",
		"--apiserver-binary", l.binaries[members[0].binary]}
	for i, m := range members {
		if i > 0 && m.binary != members[0].binary {
			args = append(args, "--binary-at", fmt.Sprintf("%d=%s", i, l.binaries[m.binary]))
		}
		for _, f := range m.flags {
			args = append(args, "--flag-at", fmt.Sprintf("%d=%s", i, f))
		}
	}
	if err := os.MkdirAll(filepath.Dir(l.dataDir), 0o755); err != nil {
		return err
	}
	p, err := proc.Start(proc.Spec{Name: "local-up", Path: l.binary, Args: args, LogPath: l.dataDir + ".log"})
	if err != nil {
		return err
	}
	l.proc = p
	for deadline := time.Now().Add(3 * time.Minute); ; {
		data, _ := os.ReadFile(l.dataDir + ".log")
		if bytes.Contains(data, []byte("local-up: ready in ")) {
			return nil
		}
		if p.Exited() {
			return fmt.Errorf("local-up did not start: %s", proc.Explain(l.dataDir+".log"))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("local-up not ready after 3m (log %s.log)", l.dataDir)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// stop ends local-up, which stops its apiservers and etcd.
func (l *localUp) stop() {
	if l.proc != nil {
		l.proc.Stop(2 * time.Minute)
		l.proc = nil
	}
}

// kubeconfig is where local-up wrote the admin kubeconfig.
func (l *localUp) kubeconfig() string { return filepath.Join(l.dataDir, "kubeconfig") }

// etcdURL reads the etcd client port local-up recorded.
func (l *localUp) etcdURL() (string, error) {
	data, err := os.ReadFile(filepath.Join(l.dataDir, "local-up.json"))
	if err != nil {
		return "", err
	}
	var id struct {
		Etcd struct {
			ClientPort int `json:"clientPort"`
		} `json:"etcd"`
	}
	if err := json.Unmarshal(data, &id); err != nil {
		return "", err
	}
	return fmt.Sprintf("http://127.0.0.1:%d", id.Etcd.ClientPort), nil
}

// replace has local-up swap apiserver i for m while the others serve.
func (l *localUp) replace(ctx context.Context, i int, m member) error {
	args := append([]string{"replace", "--data-dir", l.dataDir, "--apiserver-binary", l.binaries[m.binary], fmt.Sprint(i), "--"}, m.flags...)
	_, err := l.ctl(ctx, args...)
	return err
}

// repairGaveUp and repairHookFailed are what upstream's kube-apiserver logs when the first
// pass of its ClusterIP repair loop sees a Service before its informer has the Service's
// IPAddress, creates the IPAddress and gets AlreadyExists: it does not retry that error,
// and its post-start hook fails a minute later (kubernetes/kubernetes#130377). It can happen
// whenever Services are created while it starts; netfork writes an IPAddress and its
// Service at one revision, where upstream writes the IPAddress a request earlier
// (docs/differences.md). Each captures klog's process ID.
var (
	repairGaveUp     = regexp.MustCompile(`^E\d{4} [\d:.]+\s+(\d+) \S+\] "Running ipallocator repair failed with not retryable error" err="ipaddresses\.networking\.k8s\.io \\"[^"\\]+\\" already exists"`)
	repairHookFailed = regexp.MustCompile(`^F\d{4} [\d:.]+\s+(\d+) \S+\] PostStartHook "start-service-ip-repair-controllers" failed`)
)

// hitRepairRace tells whether the last apiserver i ran failed its repair hook on the race:
// its log holds every process that apiserver slot ran, so both lines must be that one's.
func (l *localUp) hitRepairRace(i int) bool {
	data, err := os.ReadFile(filepath.Join(l.dataDir, "logs", fmt.Sprintf("apiserver-%d.log", i)))
	if err != nil {
		return false
	}
	gaveUp, failed := map[string]bool{}, ""
	for _, line := range strings.Split(string(data), "\n") {
		if m := repairGaveUp.FindStringSubmatch(line); m != nil {
			gaveUp[m[1]] = true
		}
		if m := repairHookFailed.FindStringSubmatch(line); m != nil {
			failed = m[1]
		}
	}
	return failed != "" && gaveUp[failed]
}

// restart has local-up start apiserver i again with the same binary and flags.
func (l *localUp) restart(ctx context.Context, i int) error {
	_, err := l.ctl(ctx, "restart", "--data-dir", l.dataDir, fmt.Sprint(i))
	return err
}

// status lists the apiservers.
func (l *localUp) status(ctx context.Context) ([]apiserverStatus, error) {
	out, err := l.ctl(ctx, "status", "--data-dir", l.dataDir, "--output", "json")
	if err != nil {
		return nil, err
	}
	var s []apiserverStatus
	if err := json.Unmarshal(out, &s); err != nil {
		return nil, fmt.Errorf("local-up status: %w", err)
	}
	return s, nil
}

// ctl runs a local-up subcommand and returns its stdout, or its one error line.
func (l *localUp) ctl(ctx context.Context, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, l.binary, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("local-up %s: %s", args[0], strings.TrimSpace(strings.TrimPrefix(stderr.String(), "local-up: error: ")))
	}
	return stdout.Bytes(), nil
}
