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

// bench-chart draws the charts of test/bench: it reads the chart.json the benchmark
// writes (create latency medians per contender against N, one chart per number of extra
// ServiceCIDRs) and writes one PNG per chart, three panels (p50, p90, p99) on log scales.
// It is a module of its own so that the plotting library (gonum.org/v1/plot and its fonts,
// PDF and SVG back ends) stays out of the apiserver's module graph.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

func main() {
	fs := flag.NewFlagSet("bench-chart", flag.ContinueOnError)
	in := fs.String("in", "_output/bench/chart.json", "chart data written by bench-services")
	out := fs.String("out", "_output/bench/latency.png", "PNG for the first chart; the others get -k<K> before .png")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "bench-chart: error: unexpected argument %q\n", fs.Arg(0))
		os.Exit(2)
	}
	written, err := run(*in, *out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-chart: error: %v\n", err)
		os.Exit(1)
	}
	for _, p := range written {
		fmt.Println(p)
	}
}
