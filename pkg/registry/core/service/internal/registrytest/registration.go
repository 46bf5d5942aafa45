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

package registrytest

import (
	"os"
	"os/exec"
	"testing"

	"k8s.io/component-base/metrics"
)

// alreadyRegistered is prometheus's AlreadyRegisteredError text: the registry
// gives it only for a collector with the same name, help and label names.
const alreadyRegistered = "duplicate metrics collector registration attempted"

// childEnv marks the test binary that RunInChild starts.
const childEnv = "NETFORK_METRICS_CHILD"

// ErrText is err's message, "" for nil, so errors from two allocators compare as the API would show them.
func ErrText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// WantRegisteredOverUpstream fails t for each of cs whose first registration,
// recorded in clashes by metricsutil.TakeOver after upstream's collectors were
// registered, did not clash as a collector of the very same descriptors does.
func WantRegisteredOverUpstream(t *testing.T, clashes map[string]error, cs ...metrics.Registerable) {
	t.Helper()
	for _, c := range cs {
		if got := ErrText(clashes[c.FQName()]); got != alreadyRegistered {
			t.Errorf("%s: registering over upstream's gave %q, want %q: the descriptors differ from upstream's", c.FQName(), got, alreadyRegistered)
		}
	}
}

// InChild reports whether this test binary is one RunInChild started.
func InChild() bool {
	return os.Getenv(childEnv) == "1"
}

// RunInChild runs t alone in a new process of the test binary, where no
// collector is registered yet, and fails t if it fails there.
func RunInChild(t *testing.T) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
}
