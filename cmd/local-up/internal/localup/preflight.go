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
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/netfork/netfork/internal/proc"
)

// versionTimeout bounds the `kube-apiserver ... --version` check; parsing flags and
// printing the version takes well under a second.
const versionTimeout = 15 * time.Second

// checkFree fails, naming addr and what needs it, when something already listens there.
func checkFree(addr, who, remedy string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("address %s (%s) is already in use: %s", addr, who, remedy)
		}
		return fmt.Errorf("cannot listen on %s (%s): %w", addr, who, err)
	}
	return l.Close()
}

// checkAPIServer makes sure binary is a kube-apiserver that accepts args, and returns its
// version line (e.g. "Kubernetes v1.37.2+netfork"). `binary --version` alone must print
// that line; then kube-apiserver parses every flag, feature gates included, before it
// prints its version, so `binary args --version` fails on a bad flag, before local-up
// touches anything.
func checkAPIServer(ctx context.Context, binary string, args []string) (string, error) {
	stdout, output, err := runVersion(ctx, binary, nil)
	version := versionLine(stdout)
	if err != nil || version == "" {
		what := "printed " + quoteFirstLine(output)
		if err != nil {
			what = fmt.Sprintf("failed (%v): %s", err, proc.ErrorLine(output))
		}
		return "", fmt.Errorf("%s is not a kube-apiserver: --version %s", binary, what)
	}
	if _, output, err = runVersion(ctx, binary, args); err != nil {
		return "", fmt.Errorf("kube-apiserver rejects its flags: %s", proc.ErrorLine(output))
	}
	return version, nil
}

// runVersion runs binary with args and --version, returning its stdout and its combined output.
func runVersion(ctx context.Context, binary string, args []string) (string, string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append(append([]string(nil), args...), "--version")...)
	cmd.SysProcAttr = proc.SysProcAttr()
	out := &outputs{}
	cmd.Stdout, cmd.Stderr = streamWriter{out, true}, streamWriter{out, false}
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", "", fmt.Errorf("%s --version did not finish within %s", binary, versionTimeout)
	}
	return out.stdout.String(), out.combined.String(), err
}

// versionLine is the "Kubernetes vX.Y.Z..." line kube-apiserver prints on stdout for
// --version, whatever klog writes around it, or "".
func versionLine(stdout string) string {
	for _, line := range strings.Split(stdout, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "Kubernetes v") {
			return line
		}
	}
	return ""
}

// quoteFirstLine shows the start of unexpected output in an error.
func quoteFirstLine(output string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(output), "\n")
	if line == "" {
		return "nothing"
	}
	return fmt.Sprintf("%q, not a \"Kubernetes vX.Y.Z\" line", line)
}

// outputs keeps a command's stdout apart and its combined output in order; exec copies
// the two streams from two goroutines, hence the lock.
type outputs struct {
	mu               sync.Mutex
	stdout, combined bytes.Buffer
}

// streamWriter is one of a command's streams writing into outputs.
type streamWriter struct {
	out    *outputs
	stdout bool
}

func (w streamWriter) Write(p []byte) (int, error) {
	w.out.mu.Lock()
	defer w.out.mu.Unlock()
	if w.stdout {
		w.out.stdout.Write(p)
	}
	return w.out.combined.Write(p)
}
