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

package framework

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/netfork/netfork/internal/proc"
)

// UpstreamBinaryEnv names a prebuilt upstream kube-apiserver to use instead of building one.
const UpstreamBinaryEnv = "NETFORK_UPSTREAM_APISERVER"

// upstreamPackage is upstream's command, built from this module's graph so it is exactly the
// k8s.io/kubernetes release go.mod pins.
const upstreamPackage = "k8s.io/kubernetes/cmd/kube-apiserver"

var (
	upstreamOnce   sync.Once
	upstreamBinary string
	upstreamErr    error
)

// UpstreamAPIServerBinary returns upstream's kube-apiserver, building it once
// per test process into _output/upstream; go's build cache keeps rebuilds cheap.
func UpstreamAPIServerBinary(t testing.TB) string {
	t.Helper()
	upstreamOnce.Do(func() {
		if path := os.Getenv(UpstreamBinaryEnv); path != "" {
			upstreamBinary = path
			return
		}
		root, err := repoRoot()
		if err != nil {
			upstreamErr = err
			return
		}
		upstreamBinary = filepath.Join(root, "_output", "upstream", "kube-apiserver")
		cmd := exec.Command("go", "build", "-o", upstreamBinary, upstreamPackage)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			upstreamErr = fmt.Errorf("building %s: %w\n%s", upstreamPackage, err, out)
		}
	})
	if upstreamErr != nil {
		t.Fatalf("framework: %v", upstreamErr)
	}
	return upstreamBinary
}

// NetforkBinaryEnv names a prebuilt netfork kube-apiserver to use instead of building one.
const NetforkBinaryEnv = "NETFORK_APISERVER_BINARY"

var (
	netforkOnce   sync.Once
	netforkBinary string
	netforkErr    error
)

// NetforkAPIServerBinary returns netfork's kube-apiserver, building it once per
// test process into _output/integration; go's build cache keeps rebuilds cheap.
func NetforkAPIServerBinary(t testing.TB) string {
	t.Helper()
	netforkOnce.Do(func() {
		if path := os.Getenv(NetforkBinaryEnv); path != "" {
			netforkBinary = path
			return
		}
		root, err := repoRoot()
		if err != nil {
			netforkErr = err
			return
		}
		netforkBinary = filepath.Join(root, "_output", "integration", "kube-apiserver")
		cmd := exec.Command("go", "build", "-o", netforkBinary, "./cmd/kube-apiserver")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			netforkErr = fmt.Errorf("building ./cmd/kube-apiserver: %w\n%s", err, out)
		}
	})
	if netforkErr != nil {
		t.Fatalf("framework: %v", netforkErr)
	}
	return netforkBinary
}

// repoRoot finds the directory of netfork's go.mod above the test's working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// StartUpstreamAPIServer runs upstream's kube-apiserver at the pinned release as a process
// on the package's etcd with the same defaults as StartAPIServer, waits for
// /readyz, and stops it (by its PID) when the test ends.
func StartUpstreamAPIServer(t *testing.T, opts ...Option) *APIServer {
	t.Helper()
	return startProcessAPIServer(t, UpstreamAPIServerBinary(t), opts)
}

// StartNetforkProcess runs netfork's own kube-apiserver binary as a process,
// like StartUpstreamAPIServer: for tests that need apiservers with different
// feature gates at once, which in-process servers (one gate set per process) cannot be.
func StartNetforkProcess(t *testing.T, opts ...Option) *APIServer {
	t.Helper()
	return startProcessAPIServer(t, NetforkAPIServerBinary(t), opts)
}

func startProcessAPIServer(t *testing.T, binary string, opts []Option) *APIServer {
	t.Helper()
	o := newServerOptions(t, opts)
	dir := t.TempDir()
	creds := newCredentials(t, dir, o.servingIPs)
	port, err := freeLoopbackPort()
	if err != nil {
		t.Fatalf("framework: %v", err)
	}

	args := append(defaultFlags(EtcdURL(t), o.etcdPrefix, creds),
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--cert-dir="+dir,
	)
	args = append(args, featureGateFlag(o)...)
	args = append(args, o.flags...)

	logPath := filepath.Join(dir, "kube-apiserver.log")
	p, err := proc.Start(proc.Spec{Name: filepath.Base(binary), Path: binary, Args: args, LogPath: logPath})
	if err != nil {
		t.Fatalf("framework: %v", err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			if killed := p.Stop(shutdownTimeout); killed {
				t.Errorf("framework: pid %d did not stop within %s of SIGTERM; killed (log %s)", p.Pid(), shutdownTimeout, logPath)
			}
		})
	}
	t.Cleanup(stop)

	host := "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	s := newAPIServer(t, creds.adminConfig(host), o.etcdPrefix, stop)
	t.Cleanup(func() {
		if t.Failed() {
			logTail(t, logPath)
		}
	})
	waitReady(t, s, proc.ExitsOn(p))
	return s
}

// featureGateFlag is WithFeatureGates as a --feature-gates flag, sorted so logs read the same each run.
func featureGateFlag(o *serverOptions) []string {
	if len(o.featureGates) == 0 {
		return nil
	}
	gates := make([]string, 0, len(o.featureGates))
	for name, on := range o.featureGates {
		gates = append(gates, fmt.Sprintf("%s=%t", name, on))
	}
	sort.Strings(gates)
	return []string{"--feature-gates=" + strings.Join(gates, ",")}
}

// logTail prints the end of a failed process's log into the test output.
func logTail(t testing.TB, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	const tail = 8 << 10
	if len(data) > tail {
		data = data[len(data)-tail:]
	}
	t.Logf("last lines of %s:\n%s", path, data)
}

func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
