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

package runner

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/netfork/netfork/internal/pki"

	"github.com/netfork/netfork/test/bench/internal/measure"
	"github.com/netfork/netfork/test/bench/internal/plan"
	"github.com/netfork/netfork/test/bench/internal/ranges"
	"github.com/netfork/netfork/test/bench/internal/report"
	"github.com/netfork/netfork/test/bench/internal/result"
)

// Run executes the plan, writing results.csv after every run so an interrupted benchmark
// keeps what it measured, then writes results.json and the chart and prints the summary.
// It returns how many runs failed.
func Run(ctx context.Context, o *plan.Options, stdout, stderr io.Writer) (int, error) {
	start := time.Now()
	dirs, err := plan.NewLayout(o.OutputDir)
	if err != nil {
		return 0, err
	}
	p, err := pki.Ensure(dirs.PKI, pki.DefaultServingSANs([]net.IP{net.ParseIP(ranges.KubernetesServiceIP)}, nil))
	if err != nil {
		return 0, err
	}
	specs := plan.Plan(o)
	fmt.Fprintf(stderr, "bench-services: %d runs: %s; %d round(s), %d workers, %d apiserver(s) per run; output in %s\n",
		len(specs), plan.DescribeMatrix(o.Matrix()), o.Rounds, o.Workers, o.Apiservers, dirs.Root)

	var results []result.Result
	failed := 0
	for i, spec := range specs {
		if ctx.Err() != nil {
			break
		}
		var r result.Result
		if err := spec.SetPace(results); err != nil {
			r = measure.NewResult(o, spec)
			r.Failf("%v", err)
			r.Finish(time.Now())
		} else {
			r = measure.Measure(ctx, o, spec, p, dirs, stderr)
		}
		if ctx.Err() != nil {
			break // An interrupted run measured nothing worth keeping.
		}
		results = append(results, r)
		if !r.Consistent {
			failed++
		}
		fmt.Fprintf(stderr, "bench-services: [%d/%d] %s\n", i+1, len(specs), report.Describe(r))
		if err := report.WriteCSV(dirs.CSV(), results); err != nil {
			return failed, err
		}
	}
	if len(results) == 0 {
		return failed, ctx.Err()
	}
	if err := report.WriteJSON(dirs.JSON(), results); err != nil {
		return failed, err
	}
	if err := report.WriteChartData(dirs.ChartData(), results, o.ContenderOrder()); err != nil {
		return failed, err
	}
	charts, err := report.DrawCharts(ctx, o.ChartBinary, dirs.ChartData(), dirs.Chart())
	if err != nil {
		return failed, err
	}
	report.PrintSummary(stdout, results, o.ContenderOrder())
	report.PrintSpread(stdout, results, o.ContenderOrder())
	report.PrintTargets(stdout, results)
	report.PrintLoad(stdout, results)
	fmt.Fprintf(stdout, "\nwrote %s, %s, %s, %v; logs in %s; %d runs in %s\n",
		dirs.CSV(), dirs.JSON(), dirs.ChartData(), charts, dirs.Logs, len(results), time.Since(start).Round(time.Second))
	return failed, ctx.Err()
}
