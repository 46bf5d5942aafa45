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
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/netfork/netfork/internal/cmdutil"

	"github.com/netfork/netfork/test/bench/internal/plan"
	"github.com/netfork/netfork/test/bench/internal/report"
	"github.com/netfork/netfork/test/bench/internal/runner"
)

func main() {
	os.Exit(benchMain(os.Args[1:], os.Stdout, os.Stderr))
}

// benchMain runs the benchmark and returns the exit code: 0 when every run was consistent,
// 1 on an error, on Ctrl-C, or when any run failed, so scripts cannot mistake a failure
// for a result.
func benchMain(args []string, stdout, stderr io.Writer) int {
	o := plan.NewOptions()
	if code, ok := cmdutil.ParseFlags("bench-services", plan.Usage, args, stderr, o.Parse); !ok {
		return code
	}
	if len(o.Cluster.Report) > 0 {
		return printReport(report.ClusterReport, o.Cluster.Report, "--cluster-report", "measurements", stdout, stderr)
	}
	if len(o.Report) > 0 {
		return printReport(report.Report, o.Report, "--report", "runs", stdout, stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run := runner.Run
	if o.Cluster.On() {
		run = runner.RunCluster
	}
	failed, err := run(ctx, o, stdout, stderr)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "bench-services: interrupted; every apiserver and etcd it started is stopped")
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "bench-services: error: %v\n", err)
		return 1
	case failed > 0:
		fmt.Fprintf(stderr, "bench-services: %d run(s) failed (consistent=false); see the table above\n", failed)
		return 1
	}
	return 0
}

// printReport prints the report of the results files with render, and returns 1 when it
// fails (naming flag) or when any of what it read (the what) failed its checks.
func printReport(render func([]string, io.Writer) (int, error), files []string, flag, what string, stdout, stderr io.Writer) int {
	failed, err := render(files, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "bench-services: %s: %v\n", flag, err)
		return 1
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "bench-services: %d of the %s read failed (consistent=false)\n", failed, what)
		return 1
	}
	return 0
}
