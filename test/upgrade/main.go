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
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/netfork/netfork/internal/cmdutil"
)

// usage is printed above the flags by --help.
const usage = `Usage: upgrade-downgrade --local-up PATH --binary netfork=PATH --binary vX.Y.Z=PATH ... [flags]

Rolls a 3-apiserver local-up through upgrade and downgrade scenarios under load and checks
the cluster after every step. hack/upgrade-downgrade.sh builds what it needs and runs it.

Flags:
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the harness's flags.
type options struct {
	localUp, dataDir, pinned string
	port                     int
	binaryFlags, which       []string
	binaries                 map[string]string
	versions                 []string
	repairInterval, settle   time.Duration
}

// parse binds and checks the flags.
func (o *options) parse(fs *pflag.FlagSet, args []string) error {
	fs.StringVar(&o.localUp, "local-up", "_output/bin/local-up", "the local-up binary")
	fs.StringVar(&o.dataDir, "data-dir", "_output/upgrade", "where each scenario's local-up keeps its data (one dir per scenario)")
	fs.IntVar(&o.port, "port", 6443, "local-up's --port")
	fs.StringArrayVar(&o.binaryFlags, "binary", nil, "NAME=PATH: netfork=PATH for netfork's kube-apiserver, vX.Y.Z=PATH for an upstream release (repeatable)")
	fs.StringSliceVar(&o.which, "scenarios", []string{"a", "b", "c"}, "which scenarios: a (upstream → netfork → back), b (KEP-1880 migration and rollback), c (dual-stack with upstream joining)")
	fs.StringVar(&o.pinned, "pinned", "", "the upstream release netfork is built on, which scenario c runs beside netfork (default: go.mod's k8s.io/kubernetes, from go list -m)")
	fs.DurationVar(&o.repairInterval, "repair-interval", 3*time.Minute, "how long IPAddresses and the expected warning may take (upstream's repair interval)")
	fs.DurationVar(&o.settle, "settle", time.Minute, "how long the kubernetes Service and the bitmaps may take to agree")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	o.binaries = map[string]string{}
	for _, b := range o.binaryFlags {
		name, path, ok := strings.Cut(b, "=")
		if !ok || name == "" || path == "" {
			return fmt.Errorf("--binary %q: want NAME=PATH", b)
		}
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("--binary %s: %w", b, err)
		}
		o.binaries[name] = path
		if name != "netfork" {
			o.versions = append(o.versions, name)
		}
	}
	if o.binaries["netfork"] == "" {
		return fmt.Errorf("--binary netfork=PATH is required")
	}
	if o.pinned == "" {
		pinned, err := pinnedRelease()
		if err != nil {
			return err
		}
		o.pinned = pinned
	}
	if o.binaries[o.pinned] == "" {
		return fmt.Errorf("--binary %s=PATH is required: scenario c runs upstream %s beside netfork", o.pinned, o.pinned)
	}
	if _, err := os.Stat(o.localUp); err != nil {
		return fmt.Errorf("--local-up: %w", err)
	}
	return nil
}

// pinnedRelease is the k8s.io/kubernetes version go.mod requires, read with go list in
// the module the harness runs from.
func pinnedRelease() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/kubernetes").Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(exit.Stderr)))
	}
	if err != nil {
		return "", fmt.Errorf("--pinned not given, and go list -m k8s.io/kubernetes failed (%w): run in netfork's module or pass --pinned vX.Y.Z", err)
	}
	version := strings.TrimSpace(string(out))
	if !strings.HasPrefix(version, "v1.") {
		return "", fmt.Errorf("--pinned not given, and go list -m k8s.io/kubernetes printed %q, not a release: pass --pinned vX.Y.Z", version)
	}
	return version, nil
}

// run parses the flags, runs the scenarios and prints the summary; the exit code is 1
// when a step failed.
func run(args []string, stdout, stderr io.Writer) int {
	o := &options{}
	if code, ok := cmdutil.ParseFlags("upgrade-downgrade", usage, args, stderr, o.parse); !ok {
		return code
	}
	list, err := scenarios(o.which, o.versions, o.pinned)
	if err != nil {
		fmt.Fprintf(stderr, "upgrade-downgrade: error: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &runner{o: o, out: stdout}
	code := 0
	for _, sc := range list {
		if err := r.runScenario(ctx, sc); err != nil {
			fmt.Fprintf(stderr, "upgrade-downgrade: error: %v\n", err)
			code = 1
		}
		if ctx.Err() != nil {
			break
		}
	}
	fmt.Fprintln(stdout, "\n== summary")
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tSTEP\tRESULT\tSECONDS\tFAILED CHECKS")
	for _, s := range r.summaries {
		result := "ok"
		if !s.ok {
			result, code = "FAIL", 1
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", s.scenario, s.step, result, s.seconds, s.failed)
	}
	_ = tw.Flush()
	return code
}
