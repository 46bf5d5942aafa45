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

package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"

	"github.com/netfork/netfork/test/bench/chartfile"

	"github.com/netfork/netfork/test/bench/internal/result"
)

// chartsOf reduces the results to the charts' data (chart.json, which test/bench/chart
// draws), contenders in their given order.
func chartsOf(results []result.Result, contenders []string) chartfile.File {
	var ks []int
	for _, c := range cells(results) {
		if !slices.Contains(ks, c.cidrs) {
			ks = append(ks, c.cidrs)
		}
	}
	slices.Sort(ks)
	var out chartfile.File
	for _, k := range ks {
		d := chartfile.Chart{CIDRs: k}
		for _, c := range cells(results) {
			if c.cidrs == k && !slices.Contains(d.Ns, c.n) {
				d.Ns = append(d.Ns, c.n)
			}
		}
		slices.Sort(d.Ns)
		for _, name := range contenders {
			s := chartfile.Series{Contender: name}
			for _, n := range d.Ns {
				a, ok := aggregateOf(results, name, cell{n, k})
				if !ok {
					s.P50, s.P90, s.P99 = append(s.P50, nil), append(s.P90, nil), append(s.P99, nil)
					continue
				}
				s.P50, s.P90, s.P99 = append(s.P50, &a.p50), append(s.P90, &a.p90), append(s.P99, &a.p99)
				s.Failed = s.Failed || !a.consistent
			}
			d.Series = append(d.Series, s)
		}
		out.Charts = append(out.Charts, d)
	}
	return out
}

// WriteChartData writes the charts' data as JSON for test/bench/chart.
func WriteChartData(path string, results []result.Result, contenders []string) error {
	return writeFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(chartsOf(results, contenders))
	})
}

// DrawCharts runs test/bench/chart on the chart data at in and returns the PNGs it wrote
// (out for the first), one path per line of its output; with no binary it draws nothing.
func DrawCharts(ctx context.Context, binary, in, out string) ([]string, error) {
	if binary == "" {
		return nil, nil
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, binary, "--in", in, "--out", out)
	cmd.Stderr = &stderr
	written, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("drawing %s with %s: %w: %s", in, binary, err, strings.TrimSpace(stderr.String()))
	}
	return strings.Fields(string(written)), nil
}
