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
	"net"
	"slices"
	"time"

	"github.com/netfork/netfork/internal/pki"
)

// runSpec is one cell of the matrix in one round.
type runSpec struct {
	contender contender
	n, cidrs  int
	round     int
}

// name identifies the run in file names.
func (s runSpec) name() string {
	return fmt.Sprintf("%s-n%d-k%d-r%d", s.contender.name, s.n, s.cidrs, s.round)
}

// plan lists the runs in order: rounds outermost, so every contender runs once per round
// in each of its cells, and each cell's contenders rotate each round so none always runs first.
func plan(o *options) []runSpec {
	var specs []runSpec
	for round := 1; round <= o.Rounds; round++ {
		for _, cell := range o.matrix() {
			if !cell.inRound(round) {
				continue
			}
			for _, name := range rotate(cell.contenders, round-1) {
				c, _ := lookupContender(name) // validate checked every name.
				specs = append(specs, runSpec{contender: c, n: cell.n, cidrs: cell.cidrs, round: round})
			}
		}
	}
	return specs
}

// rotate returns names started at index by, wrapping around.
func rotate(names []string, by int) []string {
	by %= len(names)
	return append(slices.Clone(names[by:]), names[:by]...)
}

// run executes the plan, writing results.csv after every run so an interrupted benchmark
// keeps what it measured, then writes results.json and the chart and prints the summary.
// It returns how many runs failed.
func run(ctx context.Context, o *options, stdout, stderr io.Writer) (int, error) {
	start := time.Now()
	dirs, err := newLayout(o.OutputDir)
	if err != nil {
		return 0, err
	}
	p, err := pki.Ensure(dirs.pki, pki.DefaultServingSANs([]net.IP{net.ParseIP(kubernetesServiceIP)}, nil))
	if err != nil {
		return 0, err
	}
	specs := plan(o)
	fmt.Fprintf(stderr, "bench-services: %d runs: %s; %d round(s), %d workers, %d apiserver(s) per run; output in %s\n",
		len(specs), describeMatrix(o.matrix()), o.Rounds, o.Workers, o.Apiservers, dirs.root)

	var results []result
	failed := 0
	for i, spec := range specs {
		if ctx.Err() != nil {
			break
		}
		r := measure(ctx, o, spec, p, dirs, stderr)
		if ctx.Err() != nil {
			break // An interrupted run measured nothing worth keeping.
		}
		results = append(results, r)
		if !r.Consistent {
			failed++
		}
		fmt.Fprintf(stderr, "bench-services: [%d/%d] %s\n", i+1, len(specs), describe(r))
		if err := writeCSV(dirs.csv(), results); err != nil {
			return failed, err
		}
	}
	if len(results) == 0 {
		return failed, ctx.Err()
	}
	if err := writeJSON(dirs.json(), results); err != nil {
		return failed, err
	}
	if err := writeChartData(dirs.chartData(), results, o.contenderOrder()); err != nil {
		return failed, err
	}
	charts, err := drawCharts(ctx, o.ChartBinary, dirs)
	if err != nil {
		return failed, err
	}
	printSummary(stdout, results, o.contenderOrder())
	printSpread(stdout, results, o.contenderOrder())
	printTargets(stdout, results)
	printLoad(stdout, results)
	fmt.Fprintf(stdout, "\nwrote %s, %s, %s, %v; logs in %s; %d runs in %s\n",
		dirs.csv(), dirs.json(), dirs.chartData(), charts, dirs.logs, len(results), time.Since(start).Round(time.Second))
	return failed, ctx.Err()
}
