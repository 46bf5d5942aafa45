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

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// hookEnv names the executable that stops and starts apiservers (see doc.go).
const hookEnv = "NETFORK_E2E_HOOK"

// hook runs $NETFORK_E2E_HOOK with args and returns its stdout; a failure fails the spec
// with the hook's stderr.
func hook(ctx context.Context, args ...string) string {
	path := os.Getenv(hookEnv)
	gomega.Expect(path).NotTo(gomega.BeEmpty(), "%s is unset", hookEnv)
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s %s: %s", path, strings.Join(args, " "), strings.TrimSpace(stderr.String()))
	return stdout.String()
}

// requireHook skips a disruptive spec when no hook is set.
func requireHook() {
	if os.Getenv(hookEnv) == "" {
		ginkgo.Skip(hookEnv + " is unset: disruptive specs stop and start apiservers through the cluster harness's hook (make test-e2e sets hack/local-up-hook.sh)")
	}
}

// apiserverCount asks the hook how many apiservers there are, 0 without a hook.
func apiserverCount(ctx context.Context) int {
	if os.Getenv(hookEnv) == "" {
		return 0
	}
	out := strings.TrimSpace(hook(ctx, "count"))
	n, err := strconv.Atoi(out)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s count printed %q, not a number", os.Getenv(hookEnv), out)
	gomega.Expect(n).To(gomega.BeNumerically(">", 0), "%s count", os.Getenv(hookEnv))
	return n
}

// stopAPIServer stops apiserver i and returns the function that starts it again; the
// spec calls it, and a cleanup does when the spec ended before, even on failure, so later
// specs find every apiserver serving.
func stopAPIServer(ctx context.Context, i int) (start func(context.Context)) {
	hook(ctx, "stop", strconv.Itoa(i))
	var once sync.Once
	start = func(ctx context.Context) {
		once.Do(func() { hook(ctx, "start", strconv.Itoa(i)) })
	}
	ginkgo.DeferCleanup(start)
	return start
}
