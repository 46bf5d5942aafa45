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

package fidelity

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/netfork/netfork/internal/proc"
)

// readyTimeout bounds local-up's start: etcd, the preflight and one apiserver's /readyz,
// which local-up gives apiserverReadyTimeout (its default, a minute, is too short for a
// loaded machine).
const (
	readyTimeout          = 3 * time.Minute
	apiserverReadyTimeout = 2 * time.Minute
)

// cluster is one local-up with one apiserver, started for one run of the scenario.
type cluster struct {
	config  *rest.Config
	dataDir string
	etcdURL string
	// apiserverLog is the apiserver's stderr, klog's lines included.
	apiserverLog string
}

// startLocalUp runs local-up on a fresh data dir with binary as its apiserver and flags
// after "--" and returns once it printed its ready line, with a function that stops it (by
// its PID); the test's cleanup stops it too.
func startLocalUp(t *testing.T, localUp, binary, dataDir string, port int, flags []string) (*cluster, func()) {
	t.Helper()
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		t.Fatalf("creating %s: %v", dataDir, err)
	}
	args := append([]string{"--data-dir", dataDir, "--clean", "--port", strconv.Itoa(port),
		"--apiserver-binary", binary, "--ready-timeout", apiserverReadyTimeout.String(), "--"}, flags...)
	out := dataDir + ".out"
	p, err := proc.Start(proc.Spec{Name: "local-up", Path: localUp, Args: args, LogPath: out})
	if err != nil {
		t.Fatalf("%v", err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			if p.Stop(time.Minute) {
				t.Errorf("local-up (pid %d) did not stop within a minute of SIGTERM; killed", p.Pid())
			}
		})
	}
	t.Cleanup(stop)
	if err := waitReadyLine(p, out); err != nil {
		t.Fatalf("local-up with %s: %v", binary, err)
	}
	c := &cluster{dataDir: dataDir, apiserverLog: filepath.Join(dataDir, "logs", "apiserver-0.log")}
	c.config, err = clientcmd.BuildConfigFromFlags("", filepath.Join(dataDir, "kubeconfig"))
	if err != nil {
		t.Fatalf("loading local-up's kubeconfig: %v", err)
	}
	c.config.QPS, c.config.Burst = -1, -1
	if c.etcdURL, err = etcdURL(dataDir); err != nil {
		t.Fatalf("%v", err)
	}
	return c, stop
}

// restartAPIServer restarts the apiserver of the local-up on dataDir with the flags it
// has, and returns once it is ready again (local-up restart).
func restartAPIServer(ctx context.Context, localUp, dataDir string) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, localUp, "restart", "--data-dir", dataDir, "0").CombinedOutput()
	if err != nil {
		return fmt.Errorf("local-up restart: %w: %s", err, out)
	}
	return nil
}

// waitReadyLine polls local-up's output for its ready line, the signal that the apiserver
// passed /readyz, and fails early when local-up exits.
func waitReadyLine(p *proc.Process, out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		data, _ := os.ReadFile(out)
		if strings.Contains(string(data), "local-up: ready in ") {
			return nil
		}
		select {
		case <-p.Done():
			return fmt.Errorf("local-up exited (%v) before it was ready:\n%s", p.Err(), data)
		case <-ctx.Done():
			return fmt.Errorf("no ready line within %s (output in %s)", readyTimeout, out)
		case <-tick.C:
		}
	}
}

// etcdURL reads the embedded etcd's client port from local-up.json.
func etcdURL(dataDir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dataDir, "local-up.json"))
	if err != nil {
		return "", err
	}
	var id struct {
		Etcd *struct {
			ClientPort int `json:"clientPort"`
		} `json:"etcd"`
	}
	if err := json.Unmarshal(data, &id); err != nil || id.Etcd == nil {
		return "", fmt.Errorf("local-up.json in %s names no etcd client port (%v)", dataDir, err)
	}
	return "http://127.0.0.1:" + strconv.Itoa(id.Etcd.ClientPort), nil
}
