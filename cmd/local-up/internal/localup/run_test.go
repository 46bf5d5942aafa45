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
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer collects a writer's output for a test while local-up writes it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// runningLocalUp is a Run in a goroutine, on the fake apiserver.
type runningLocalUp struct {
	o              *Options
	stdout, stderr *syncBuffer
	cancel         context.CancelFunc
	done           chan error
}

// startRun runs local-up with o until the test ends and waits for its ready line.
func startRun(t *testing.T, o *Options) *runningLocalUp {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &runningLocalUp{o: o, stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- Run(ctx, o, time.Now(), r.stdout, r.stderr) }()
	t.Cleanup(func() { _ = r.stop(t) }) // A test that checks the error stops it itself.
	for deadline := time.Now().Add(time.Minute); !strings.Contains(r.stdout.String(), "local-up: ready in "); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-r.done:
			r.done <- err
			t.Fatalf("local-up ended before ready: %v\n%s", err, r.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ready line after 1m\n%s", r.stderr)
		}
	}
	return r
}

// stop ends the run and returns its error; later calls return the same.
func (r *runningLocalUp) stop(t *testing.T) error {
	t.Helper()
	r.cancel()
	select {
	case err := <-r.done:
		r.done <- err
		return err
	case <-time.After(2 * time.Minute):
		t.Fatalf("local-up still running 2m after its context ended\n%s", r.stderr)
	}
	return nil
}

// ctl runs a subcommand against the run's data dir and returns its exit code and output.
func (r *runningLocalUp) ctl(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	full := append([]string{args[0], "--data-dir", r.o.DataDir}, args[1:]...)
	code := runSubcommand(context.Background(), full, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// status is `local-up status --output json`.
func (r *runningLocalUp) status(t *testing.T) []memberStatus {
	t.Helper()
	code, out, errOut := r.ctl("status", "--output", "json")
	if code != 0 {
		t.Fatalf("status exited %d: %s", code, errOut)
	}
	var s []memberStatus
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("status output %q: %v", out, err)
	}
	return s
}

// mustCtl runs a subcommand that must succeed with one line on stdout.
func (r *runningLocalUp) mustCtl(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := r.ctl(args...)
	if code != 0 || errOut != "" || strings.Count(out, "\n") != 1 {
		t.Fatalf("local-up %q exited %d, stdout %q, stderr %q", args, code, out, errOut)
	}
	return out
}

// mustRefuse runs a subcommand that must fail with exactly one error line containing want.
func (r *runningLocalUp) mustRefuse(t *testing.T, want string, args ...string) {
	t.Helper()
	code, out, errOut := r.ctl(args...)
	if code == 0 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "local-up: error: ") || !strings.Contains(errOut, want) {
		t.Fatalf("local-up %q exited %d, stdout %q, stderr %q; want one error line containing %q", args, code, out, errOut, want)
	}
}

// frontClient reaches the front as the admin, one new connection per request.
func frontClient(t *testing.T, o *Options) *http.Client {
	t.Helper()
	p := newLayout(o.DataDir)
	ca, err := os.ReadFile(filepath.Join(p.pkiDir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DisableKeepAlives: true,
		TLSClientConfig:   &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
	}}
}

// whoami asks the front which apiserver answered.
func whoami(t *testing.T, c *http.Client, front string) string {
	t.Helper()
	resp, err := c.Get("https://" + front + "/whoami")
	if err != nil {
		t.Fatalf("GET via the front: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

func TestRunSupervisesAPIServers(t *testing.T) {
	loopbackAvailable(t, frontAddress)
	o := testOptions(t)
	o.APIServers = 3
	o.ReadyTimeout = 30 * time.Second
	r := startRun(t, o)
	front := "127.0.0.254:" + portString(o.Port)
	if line := r.stdout.String(); !strings.Contains(line, "3 apiserver(s) at https://127.0.0.1:"+portString(o.Port)+" .. https://127.0.0.3:"+portString(o.Port)+", front https://"+front) {
		t.Errorf("ready line %q", line)
	}
	if !strings.Contains(r.stderr.String(), "(Kubernetes v1.37.1-fake)") || strings.Contains(r.stderr.String(), "feature_gate.go") {
		t.Errorf("local-up did not print the version line alone:\n%s", r.stderr)
	}
	if got := r.mustCtl(t, "status", "--count"); got != "3\n" {
		t.Fatalf("status --count = %q", got)
	}
	before := r.status(t)
	for _, s := range before {
		if s.State != "ready" || s.PID == 0 {
			t.Fatalf("after start: %+v", s)
		}
	}
	kubeconfig, _ := os.ReadFile(filepath.Join(o.DataDir, "kubeconfig"))
	if !strings.Contains(string(kubeconfig), "server: https://"+front) {
		t.Errorf("kubeconfig does not name the front:\n%s", kubeconfig)
	}

	// stop returns once apiserver 0 has exited; the front then never sends a client there.
	r.mustCtl(t, "stop", "0")
	if syscall.Kill(before[0].PID, 0) == nil {
		t.Fatalf("apiserver 0 (pid %d) still runs after stop returned", before[0].PID)
	}
	if s := r.status(t)[0]; s.State != "stopped" || s.PID != 0 {
		t.Fatalf("after stop: %+v", s)
	}
	client := frontClient(t, o)
	for range 6 {
		if got := whoami(t, client, front); got == before[0].Endpoint {
			t.Fatalf("the front sent a request to stopped apiserver 0")
		}
	}
	r.mustRefuse(t, "apiserver-0 is not running (stopped): nothing to stop", "stop", "0")
	r.mustCtl(t, "start", "0")
	r.mustRefuse(t, "apiserver-0 is already running (ready)", "start", "0")

	// A kill -9 is reported and leaves local-up up; start brings the apiserver back.
	pid1 := r.status(t)[1].PID
	if err := syscall.Kill(pid1, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); r.status(t)[1].State != "exited"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("apiserver 1 not reported exited: %+v", r.status(t)[1])
		}
	}
	if s := r.status(t)[1]; !strings.Contains(s.Exit, "apiserver-1 stopped (signal: killed) (log: ") {
		t.Errorf("exit = %q", s.Exit)
	}
	if !strings.Contains(r.stderr.String(), "restart it with: local-up start --data-dir "+newLayout(o.DataDir).dataDir+" 1") {
		t.Errorf("stderr does not report the exit:\n%s", r.stderr)
	}
	r.mustCtl(t, "start", "1")

	// Bad input changes nothing: the apiservers keep their processes.
	pids := map[int]int{}
	for _, s := range r.status(t) {
		pids[s.Index] = s.PID
	}
	r.mustRefuse(t, "apiserver 7 does not exist: this local-up runs apiservers 0 to 2", "replace", "7")
	r.mustRefuse(t, "/bin/true is not a kube-apiserver: --version printed", "replace", "--apiserver-binary", "/bin/true", "1")
	r.mustRefuse(t, `kube-apiserver rejects its flags: Error: invalid argument "Bad=true"`, "replace", "1", "--", "--feature-gates=Bad=true")
	r.mustRefuse(t, "replace may not move apiserver-1", "replace", "1", "--", "--bind-address=127.0.0.9")
	r.mustRefuse(t, `apiserver index "x" is not a number`, "stop", "x")
	r.mustRefuse(t, "local-up stop takes no kube-apiserver flags", "stop", "1", "--", "--v=1")
	for _, s := range r.status(t) {
		if s.PID != pids[s.Index] || s.State != "ready" {
			t.Fatalf("bad input changed apiserver %d: %+v (pid was %d)", s.Index, s, pids[s.Index])
		}
	}

	// replace with flags that crash: reported, left exited; replace back brings it up.
	r.mustRefuse(t, "apiserver-2 stopped (exit status 1): fake crash: asked to", "replace", "2", "--", "--fake-crash")
	if s := r.status(t)[2]; s.State != "exited" || len(s.Args) != 1 {
		t.Fatalf("after a failed replace: %+v", s)
	}
	r.mustCtl(t, "replace", "2", "--")
	if s := r.status(t)[2]; s.State != "ready" || len(s.Args) != 0 {
		t.Fatalf("after replace back: %+v", s)
	}

	// A stream through the front to a stopping apiserver is ended after drainGrace, so the
	// stop does not wait for the client.
	resp, err := client.Get("https://" + front + "/watch")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	watched, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]string{before[0].Endpoint: "0", before[1].Endpoint: "1", before[2].Endpoint: "2"}[strings.TrimSpace(watched)]
	start := time.Now()
	r.mustCtl(t, "stop", index)
	if elapsed := time.Since(start); elapsed < drainGrace || elapsed > drainGrace+20*time.Second {
		t.Errorf("stopping apiserver %s with a stream open took %s, want about %s", index, elapsed, drainGrace)
	}
	if !strings.Contains(r.stderr.String(), "apiserver-"+index+" still stopping after 5s: closed its 1 client connection(s) through the front") {
		t.Errorf("stderr does not report the drain:\n%s", r.stderr)
	}
	r.mustCtl(t, "start", index)

	final := r.status(t)
	if err := r.stop(t); err != nil {
		t.Fatalf("Run returned %v after its context ended", err)
	}
	for _, s := range final {
		if syscall.Kill(s.PID, 0) == nil {
			t.Errorf("apiserver %d (pid %d) outlived local-up", s.Index, s.PID)
		}
	}
	if _, err := os.Stat(newLayout(o.DataDir).socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("control socket left behind: %v", err)
	}
	r.mustRefuse(t, "no local-up is running on data dir", "status")
}
