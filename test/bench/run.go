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
	// createPace and deletePace hold the phases to that many requests per second; 0 is
	// as fast as the workers go. A paced contender's are set just before it runs.
	createPace, deletePace float64
	// createOnly ends the run after the create phase and its checks.
	createOnly bool
}

// name identifies the run in file names.
func (s runSpec) name() string {
	return fmt.Sprintf("%s-n%d-k%d-r%d", s.contender.name, s.n, s.cidrs, s.round)
}

// plan lists the runs in order: rounds outermost, so every contender runs once per round
// in each of its cells, and each cell's contenders rotate each round so none always runs
// first; paced contenders run last in their cell, after the contender that sets their pace.
func plan(o *options) []runSpec {
	var specs []runSpec
	for round := 1; round <= o.Rounds; round++ {
		for _, cell := range o.matrix() {
			if !cell.inRound(round) {
				continue
			}
			var free, paced []runSpec
			for _, name := range cell.contenders {
				c, _ := lookupContender(name) // validate checked every name.
				spec := runSpec{contender: c, n: cell.n, cidrs: cell.cidrs, round: round, createPace: o.Rate, deletePace: o.Rate,
					createOnly: slices.Contains(cell.createOnly, name)}
				if c.pacedBy != "" {
					paced = append(paced, spec)
				} else {
					free = append(free, spec)
				}
			}
			free = rotate(free, round-1)
			specs = append(append(specs, free...), paced...)
		}
	}
	return specs
}

// setPace holds a paced contender's run to the creates/s and deletes/s its pacer reached
// in the same cell and round; it fails when the pacer has no consistent run there.
func (s *runSpec) setPace(results []result) error {
	by := s.contender.pacedBy
	if by == "" {
		return nil
	}
	for _, r := range results {
		if r.Contender == by && r.N == s.n && r.CIDRs == s.cidrs && r.Round == s.round && r.Consistent {
			s.createPace, s.deletePace = r.CreatesPerSec, r.DeletesPerSec
			return nil
		}
	}
	return fmt.Errorf("%s takes its pace from %s, which has no consistent run at n=%d k=%d in round %d", s.contender.name, by, s.n, s.cidrs, s.round)
}

// rotate returns items started at index by, wrapping around.
func rotate[T any](items []T, by int) []T {
	if len(items) == 0 {
		return items
	}
	by %= len(items)
	return append(slices.Clone(items[by:]), items[:by]...)
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
		var r result
		if err := spec.setPace(results); err != nil {
			r = newResult(o, spec)
			r.failf("%v", err)
			r.finish(time.Now())
		} else {
			r = measure(ctx, o, spec, p, dirs, stderr)
		}
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
