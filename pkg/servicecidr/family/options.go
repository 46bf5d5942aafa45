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

package family

import (
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

// DryRun is how far a run goes without changing anything.
type DryRun string

const (
	// DryRunNone acts.
	DryRunNone DryRun = "none"
	// DryRunClient prints what would change and sends no write.
	DryRunClient DryRun = "client"
	// DryRunServer sends each update with dryRun=All, so the apiserver checks
	// and allocates but persists nothing.
	DryRunServer DryRun = "server"
)

// ParseDryRun reads kubectl's --dry-run values; "" is none.
func ParseDryRun(s string) (DryRun, error) {
	switch d := DryRun(s); d {
	case "":
		return DryRunNone, nil
	case DryRunNone, DryRunClient, DryRunServer:
		return d, nil
	}
	return "", fmt.Errorf("--dry-run %q: want none, client or server", s)
}

// Options configure a Runner.
type Options struct {
	// Policy is the ipFamilyPolicy DualStack sets: PreferDualStack when empty.
	Policy corev1.IPFamilyPolicy
	// Namespace narrows DualStack and SingleStack to one namespace; empty is every one.
	Namespace string
	// Selector narrows DualStack and SingleStack to the Services it matches (kubectl's -l).
	Selector string
	// DryRun is none when empty.
	DryRun DryRun
	// Log receives one line per change and the summary.
	Log io.Writer
	// Timeout bounds each wait of ReplaceDefault; defaultTimeout when zero.
	Timeout time.Duration
	// AfterStep, if set, is called after each change ReplaceDefault makes; an
	// error stops the run there, as a kill would (tests use it).
	AfterStep func(step string) error
}

// defaultTimeout bounds each wait for the apiservers: a ServiceCIDR being
// deleted is released after the deletion controller's 60 s grace period at
// the earliest, and the apiservers recreate `kubernetes` at once after that.
const defaultTimeout = 5 * time.Minute

// Runner changes the IP families of Services and replaces the `kubernetes` ServiceCIDR.
type Runner struct {
	client kubernetes.Interface
	opts   Options
	// poll is how often a wait reads again; tests shorten it.
	poll time.Duration
}

// New returns a Runner acting through client.
func New(client kubernetes.Interface, opts Options) *Runner {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Policy == "" {
		opts.Policy = corev1.IPFamilyPolicyPreferDualStack
	}
	if opts.DryRun == "" {
		opts.DryRun = DryRunNone
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	return &Runner{client: client, opts: opts, poll: pollInterval}
}

// step reports a change made and lets a test stop the run after it.
func (r *Runner) step(format string, args ...any) error {
	return renumber.Step(r.opts.Log, r.opts.AfterStep, format, args...)
}

// dryRunOptions are the write options of r's dry-run mode.
func (r *Runner) dryRunOptions() []string {
	if r.opts.DryRun == DryRunServer {
		return []string{metav1.DryRunAll}
	}
	return nil
}

// ParsePolicy reads --policy: the ipFamilyPolicy values that ask for two families.
func ParsePolicy(s string) (corev1.IPFamilyPolicy, error) {
	switch p := corev1.IPFamilyPolicy(s); p {
	case corev1.IPFamilyPolicyPreferDualStack, corev1.IPFamilyPolicyRequireDualStack:
		return p, nil
	}
	return "", fmt.Errorf("--policy %q: want PreferDualStack or RequireDualStack", s)
}
