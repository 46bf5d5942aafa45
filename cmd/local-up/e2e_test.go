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
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// binaryEnv names the kube-apiserver the end-to-end tests run; they skip without it.
const binaryEnv = "NETFORK_APISERVER_BINARY"

// apiserverBinary returns $NETFORK_APISERVER_BINARY or skips the test.
func apiserverBinary(t *testing.T) string {
	t.Helper()
	path := os.Getenv(binaryEnv)
	if path == "" {
		t.Skipf("%s is unset: set it to a kube-apiserver binary (e.g. _output/bin/kube-apiserver) to run local-up end to end", binaryEnv)
	}
	return path
}

// buildLocalUp compiles this command into a temp dir, so the test drives the real process,
// signals and exit code included.
func buildLocalUp(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "local-up")
	cmd := exec.Command("go", "build", "-o", out, ".")
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, output)
	}
	return out
}

// freePort returns a port free on 127.0.0.1 a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// localUp is a running local-up process.
type localUp struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	ready  chan string
	done   chan error
}

// startLocalUp runs local-up with args and collects its ready line.
func startLocalUp(t *testing.T, bin string, args ...string) *localUp {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	lu := &localUp{cmd: cmd, stderr: &bytes.Buffer{}, ready: make(chan string, 1), done: make(chan error, 1)}
	cmd.Stderr = lu.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			if strings.HasPrefix(scanner.Text(), "local-up: ready in ") {
				lu.ready <- scanner.Text()
			}
		}
		lu.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
	})
	return lu
}

// waitReady returns the ready line or fails with local-up's stderr.
func (lu *localUp) waitReady(t *testing.T) string {
	t.Helper()
	select {
	case line := <-lu.ready:
		return line
	case err := <-lu.done:
		t.Fatalf("local-up exited before ready: %v\n%s", err, lu.stderr)
	case <-time.After(3 * time.Minute):
		t.Fatalf("no ready line after 3m\n%s", lu.stderr)
	}
	return ""
}

// stop sends SIGTERM and returns local-up's exit error.
func (lu *localUp) stop(t *testing.T) error {
	t.Helper()
	if err := lu.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-lu.done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("local-up still running 1m after SIGTERM\n%s", lu.stderr)
	}
	return nil
}

// childPIDs lists the processes whose parent is pid.
func childPIDs(t *testing.T, pid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The parent PID is the second field after the parenthesised command name.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			pids = append(pids, child)
		}
	}
	return pids
}

// clientFor builds a clientset from the kubeconfig local-up wrote.
func clientFor(t *testing.T, kubeconfig string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("loading %s: %v", kubeconfig, err)
	}
	return kubernetes.NewForConfigOrDie(cfg)
}

func TestLocalUpEndToEnd(t *testing.T) {
	apiserver := apiserverBinary(t)
	bin := buildLocalUp(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	args := []string{"--apiserver-binary", apiserver, "--data-dir", dataDir, "--port", freePort(t), "--ready-timeout", "2m"}
	kubeconfig := filepath.Join(dataDir, "kubeconfig")
	ctx := context.Background()

	lu := startLocalUp(t, bin, args...)
	line := lu.waitReady(t)
	t.Log(line)
	if !strings.HasSuffix(line, "kubeconfig: "+kubeconfig) || !strings.Contains(line, "1 apiserver(s) at https://127.0.0.1:") {
		t.Errorf("unexpected ready line %q", line)
	}
	client := clientFor(t, kubeconfig)
	namespaces, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing namespaces: %v", err)
	}
	if len(namespaces.Items) == 0 {
		t.Fatalf("no namespaces")
	}
	keep := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kept-across-restart"}}
	if _, err := client.CoreV1().Namespaces().Create(ctx, keep, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a namespace: %v", err)
	}
	children := childPIDs(t, lu.cmd.Process.Pid)
	if len(children) != 1 {
		t.Fatalf("local-up has children %v, want one apiserver", children)
	}
	checkReplaceRefusesInvalidGates(t, bin, dataDir, client, children[0])

	if err := lu.stop(t); err != nil {
		t.Fatalf("local-up exited with %v after SIGTERM, want 0\n%s", err, lu.stderr)
	}
	for _, pid := range children {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("apiserver %d still exists after local-up exited", pid)
		}
	}

	// A restart without --clean finds the same cluster, credentials and objects.
	lu = startLocalUp(t, bin, args...)
	lu.waitReady(t)
	if _, err := clientFor(t, kubeconfig).CoreV1().Namespaces().Get(ctx, keep.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("namespace lost across restart: %v", err)
	}
	if _, err := client.CoreV1().Namespaces().Get(ctx, keep.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the first run's kubeconfig no longer works: %v", err)
	}
	if err := lu.stop(t); err != nil {
		t.Fatalf("second local-up exited with %v after SIGTERM\n%s", err, lu.stderr)
	}
}

// invalidGates is a gate combination netfork's kube-apiserver refuses: dual-write
// without the IPAddress allocator to write from.
const invalidGates = "MultiCIDRServiceAllocator=false,DisableAllocatorDualWrite=false"

// checkReplaceRefusesInvalidGates has local-up replace apiserver 0 with flags it must
// refuse, and checks that the refusal names the gates and left apiserver pid serving.
func checkReplaceRefusesInvalidGates(t *testing.T, bin, dataDir string, client kubernetes.Interface, pid int) {
	t.Helper()
	cmd := exec.Command(bin, "replace", "--data-dir", dataDir, "0", "--", "--feature-gates="+invalidGates)
	out, err := cmd.CombinedOutput()
	want := "kube-apiserver rejects its flags: Error: --feature-gates: DisableAllocatorDualWrite=false (dual-write) needs MultiCIDRServiceAllocator=true"
	if err == nil || !strings.Contains(string(out), want) {
		t.Fatalf("local-up replace with %s: %v, output %q, want a failure containing %q", invalidGates, err, out, want)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("apiserver %d is gone after the refused replace: %v", pid, err)
	}
	if _, err := client.CoreV1().Namespaces().Get(context.Background(), metav1.NamespaceDefault, metav1.GetOptions{}); err != nil {
		t.Fatalf("the apiserver stopped serving after the refused replace: %v", err)
	}
}

func TestLocalUpRejectsBadAPIServerFlags(t *testing.T) {
	apiserver := apiserverBinary(t)
	bin := buildLocalUp(t)
	tests := map[string]struct {
		flag string
		want string
	}{
		"malformed feature gates": {"--feature-gates=NoSuchGate", "local-up: error: kube-apiserver rejects its flags: missing bool value for NoSuchGate"},
		"unknown feature gate":    {"--feature-gates=NoSuchGate=true", "local-up: error: kube-apiserver rejects its flags: unrecognized feature gate: NoSuchGate"},
		"unknown flag":            {"--no-such-flag", "local-up: error: kube-apiserver rejects its flags: Error: unknown flag: --no-such-flag"},
		"invalid gate combination": {"--feature-gates=" + invalidGates,
			"local-up: error: kube-apiserver rejects its flags: Error: --feature-gates: DisableAllocatorDualWrite=false (dual-write) needs MultiCIDRServiceAllocator=true"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dataDir := filepath.Join(t.TempDir(), "data")
			cmd := exec.Command(bin, "--apiserver-binary", apiserver, "--data-dir", dataDir, "--port", freePort(t), "--", tc.flag)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) || exitErr.ExitCode() == 0 {
				t.Fatalf("local-up exited with %v, want non-zero", err)
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Fatalf("stderr = %q, want one line containing %q", stderr.String(), tc.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
			if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
				t.Errorf("data dir %s was created", dataDir)
			}
		})
	}
}

// TestLocalUpIPv6PrimaryRange starts local-up with an IPv6 service range only: the apiserver
// must start, advertise an IPv6 address and hand out IPv6 ClusterIPs.
func TestLocalUpIPv6PrimaryRange(t *testing.T) {
	apiserver := apiserverBinary(t)
	bin := buildLocalUp(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	lu := startLocalUp(t, bin, "--apiserver-binary", apiserver, "--data-dir", dataDir, "--port", freePort(t), "--ready-timeout", "2m",
		"--", "--service-cluster-ip-range=fd00:10:96::/64")
	lu.waitReady(t)
	client := clientFor(t, filepath.Join(dataDir, "kubeconfig"))
	ctx := context.Background()
	svc, err := client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "v6"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a Service: %v", err)
	}
	if ip := net.ParseIP(svc.Spec.ClusterIP); ip == nil || ip.To4() != nil {
		t.Errorf("Service %s has ClusterIP %q, want an IPv6 address of fd00:10:96::/64", svc.Name, svc.Spec.ClusterIP)
	}
	// The apiserver publishes itself once ready, which may come just after local-up's ready line.
	var endpoints string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		slice, err := client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		if err != nil {
			endpoints = err.Error()
			return false, nil
		}
		endpoints = fmt.Sprintf("%+v", slice.Endpoints)
		return len(slice.Endpoints) == 1 && slices.Equal(slice.Endpoints[0].Addresses, []string{"fd6e:6574:6c75::1"}), nil
	})
	if err != nil {
		t.Errorf("kubernetes EndpointSlice endpoints %s, want local-up's IPv6 advertise address fd6e:6574:6c75::1", endpoints)
	}
	if err := lu.stop(t); err != nil {
		t.Fatalf("local-up exited with %v after SIGTERM\n%s", err, lu.stderr)
	}
}
