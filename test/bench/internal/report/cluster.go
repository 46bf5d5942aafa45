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
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/netfork/netfork/test/bench/internal/result"
	"github.com/netfork/netfork/test/bench/internal/stats"
)

// clusterBaseline is the apiserver every cluster ratio is to: netfork/upstream.
const clusterBaseline = "upstream"

// clusterCSVHeader is cluster-results.csv's header; each cpu_s_ column is a component's CPU
// seconds over both phases, summed over the nodes.
var clusterCSVHeader = append([]string{
	"apiserver", "topology", "n", "workers", "round",
	"creates_per_s", "create_p50_ms", "create_p99_ms", "deletes_per_s", "delete_p50_ms", "delete_p99_ms",
	"settle_s", "apiserver_restarts", "readiness_flaps", "consistent",
}, cpuColumns()...)

// cpuColumns names the CPU columns of cluster-results.csv.
func cpuColumns() []string {
	cols := make([]string, len(result.Components))
	for i, c := range result.Components {
		cols[i] = "cpu_s_" + strings.ReplaceAll(c, "-", "_")
	}
	return cols
}

// clusterCSVRecord is one measurement as a row, in clusterCSVHeader's order.
func clusterCSVRecord(r result.ClusterResult) []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	row := []string{
		r.APIServer, r.Topology, strconv.Itoa(r.N), strconv.Itoa(r.Workers), strconv.Itoa(r.Round),
		f(r.CreatesPerSec), f(r.Create.P50), f(r.Create.P99), f(r.DeletesPerSec), f(r.Delete.P50), f(r.Delete.P99),
		f(r.SettleSeconds), strconv.Itoa(r.TotalRestarts()), strconv.Itoa(r.TotalFlaps()), strconv.FormatBool(r.Consistent),
	}
	cpu := r.ComponentCPU()
	for _, c := range result.Components {
		row = append(row, strconv.FormatFloat(cpu[c], 'f', 2, 64))
	}
	return row
}

// AppendClusterResult adds a measurement to cluster-results.json (made if missing) and
// writes cluster-results.csv again from it.
func AppendClusterResult(jsonPath, csvPath string, r result.ClusterResult) ([]result.ClusterResult, error) {
	results, err := readClusterResults(jsonPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	results = append(results, r)
	if err := writeIndentedJSON(jsonPath, results); err != nil {
		return nil, err
	}
	rows := make([][]string, len(results))
	for i, r := range results {
		rows[i] = clusterCSVRecord(r)
	}
	return results, writeFileAtomic(csvPath, func(w io.Writer) error { return writeRows(w, clusterCSVHeader, rows) })
}

// readClusterResults reads a cluster-results.json.
func readClusterResults(path string) ([]result.ClusterResult, error) {
	return readJSONList[result.ClusterResult](path, "cluster-results.json")
}

// ClusterReport prints the table of the measurements in the cluster-results.json files at
// paths and returns how many of them were not consistent: --cluster-report.
func ClusterReport(paths []string, w io.Writer) (int, error) {
	var all []result.ClusterResult
	for _, p := range paths {
		results, err := readClusterResults(p)
		if err != nil {
			return 0, err
		}
		if len(results) == 0 {
			return 0, fmt.Errorf("%s holds no measurement", p)
		}
		all = append(all, results...)
	}
	PrintClusterTable(w, all)
	failed := 0
	for _, r := range all {
		if !r.Consistent {
			failed++
		}
	}
	return failed, nil
}

// clusterRow is one line of the cluster table: a name and how to read it off a measurement.
type clusterRow struct {
	name  string
	value func(result.ClusterResult) float64
}

// clusterRows are the cluster table's lines: rates, latencies, settling, restarts and
// flaps, then each component's CPU seconds over both phases.
func clusterRows() []clusterRow {
	rows := []clusterRow{
		{"creates/s", func(r result.ClusterResult) float64 { return r.CreatesPerSec }},
		{"create p50 ms", func(r result.ClusterResult) float64 { return r.Create.P50 }},
		{"create p99 ms", func(r result.ClusterResult) float64 { return r.Create.P99 }},
		{"deletes/s", func(r result.ClusterResult) float64 { return r.DeletesPerSec }},
		{"delete p50 ms", func(r result.ClusterResult) float64 { return r.Delete.P50 }},
		{"delete p99 ms", func(r result.ClusterResult) float64 { return r.Delete.P99 }},
		{"settle s", func(r result.ClusterResult) float64 { return r.SettleSeconds }},
		{"apiserver restarts", func(r result.ClusterResult) float64 { return float64(r.TotalRestarts()) }},
		{"readiness flaps", func(r result.ClusterResult) float64 { return float64(r.TotalFlaps()) }},
	}
	for _, c := range result.Components {
		rows = append(rows, clusterRow{"CPU s " + c, func(r result.ClusterResult) float64 { return r.ComponentCPU()[c] }})
	}
	return rows
}

// clusterGroup is the measurements of one topology and N.
type clusterGroup struct {
	topology string
	n        int
}

// PrintClusterTable prints, per topology and N, each row's median and min-max over the
// rounds for each apiserver, and the median and min-max of the per-round ratios of each
// apiserver to upstream's (netfork/upstream, rounds paired by number), then the median
// rate curves.
func PrintClusterTable(w io.Writer, results []result.ClusterResult) {
	var groups []clusterGroup
	var apiservers []string
	for _, r := range results {
		if g := (clusterGroup{r.Topology, r.N}); !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
		if !slices.Contains(apiservers, r.APIServer) {
			apiservers = append(apiservers, r.APIServer)
		}
	}
	for _, g := range groups {
		byAPIServer := map[string]map[int]result.ClusterResult{}
		for _, r := range results {
			if r.Topology == g.topology && r.N == g.n {
				if byAPIServer[r.APIServer] == nil {
					byAPIServer[r.APIServer] = map[int]result.ClusterResult{}
				}
				byAPIServer[r.APIServer][r.Round] = r
			}
		}
		printClusterGroup(w, g, apiservers, byAPIServer)
	}
}

// printClusterGroup prints one topology and N.
func printClusterGroup(w io.Writer, g clusterGroup, apiservers []string, by map[string]map[int]result.ClusterResult) {
	var present []string
	for _, a := range apiservers {
		if len(by[a]) > 0 {
			present = append(present, a)
		}
	}
	fmt.Fprintf(w, "\n%s, N=%d: median (min-max) over rounds; ratios per round to %s's, paired by round\n", g.topology, g.n, clusterBaseline)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := "measure"
	for _, a := range present {
		header += fmt.Sprintf("\t%s (%d rounds, %d consistent)", a, len(by[a]), consistentCount(by[a]))
	}
	for _, a := range present {
		if a != clusterBaseline && len(by[clusterBaseline]) > 0 {
			header += fmt.Sprintf("\t%s/%s", a, clusterBaseline)
		}
	}
	fmt.Fprintln(tw, header+"\t")
	for _, row := range clusterRows() {
		line := row.name
		for _, a := range present {
			line += "\t" + medianSpread(valuesOf(by[a], row.value))
		}
		for _, a := range present {
			if a != clusterBaseline && len(by[clusterBaseline]) > 0 {
				line += "\t" + ratioSpread(by[a], by[clusterBaseline], row.value)
			}
		}
		fmt.Fprintln(tw, line+"\t")
	}
	_ = tw.Flush() // Writes to stdout; nothing to do if that fails.
	for _, a := range present {
		fmt.Fprintf(w, "%s creates/s per 10%% of N (median over rounds): %s\n", a, formatCurve(medianCurve(by[a], func(r result.ClusterResult) []float64 { return r.CreateCurve })))
		fmt.Fprintf(w, "%s deletes/s per 10%% of N (median over rounds): %s\n", a, formatCurve(medianCurve(by[a], func(r result.ClusterResult) []float64 { return r.DeleteCurve })))
	}
}

// consistentCount counts the consistent measurements.
func consistentCount(rounds map[int]result.ClusterResult) (n int) {
	for _, r := range rounds {
		if r.Consistent {
			n++
		}
	}
	return n
}

// sortedRounds are the round numbers of rounds, in order.
func sortedRounds(rounds map[int]result.ClusterResult) []int {
	keys := make([]int, 0, len(rounds))
	for k := range rounds {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// valuesOf reads one value off each round.
func valuesOf(rounds map[int]result.ClusterResult, value func(result.ClusterResult) float64) []float64 {
	var out []float64
	for _, k := range sortedRounds(rounds) {
		out = append(out, value(rounds[k]))
	}
	return out
}

// medianSpread formats values as "median (min-max)", the median alone for one value.
func medianSpread(values []float64) string {
	if len(values) == 0 {
		return "-"
	}
	s := stats.SpreadOf(values)
	if len(values) == 1 {
		return formatValue(values[0])
	}
	return fmt.Sprintf("%s (%s-%s)", formatValue(stats.Median(values)), formatValue(s.Min), formatValue(s.Max))
}

// ratioSpread formats the ratios a/b of the rounds both have, as "median (min-max)" with
// an x; "-" when no round pairs or b is 0 in each.
func ratioSpread(a, b map[int]result.ClusterResult, value func(result.ClusterResult) float64) string {
	var ratios []float64
	for _, k := range sortedRounds(a) {
		if rb, ok := b[k]; ok && value(rb) != 0 {
			ratios = append(ratios, value(a[k])/value(rb))
		}
	}
	if len(ratios) == 0 {
		return "-"
	}
	s := stats.SpreadOf(ratios)
	if len(ratios) == 1 {
		return fmt.Sprintf("%.2fx", ratios[0])
	}
	return fmt.Sprintf("%.2fx (%.2f-%.2f)", stats.Median(ratios), s.Min, s.Max)
}

// formatValue prints a table value with the precision its size needs: whole numbers (counts)
// without decimals, others under 10 with one.
func formatValue(v float64) string {
	if v != math.Trunc(v) && v < 10 && v > -10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// medianCurve is the median of each tenth's rate over the rounds that have a curve.
func medianCurve(rounds map[int]result.ClusterResult, curve func(result.ClusterResult) []float64) []float64 {
	var out []float64
	for i := 0; ; i++ {
		var values []float64
		for _, k := range sortedRounds(rounds) {
			if c := curve(rounds[k]); i < len(c) {
				values = append(values, c[i])
			}
		}
		if len(values) == 0 {
			return out
		}
		out = append(out, stats.Median(values))
	}
}

// formatCurve prints a rate curve, "-" for none.
func formatCurve(curve []float64) string {
	if len(curve) == 0 {
		return "-"
	}
	parts := make([]string, len(curve))
	for i, v := range curve {
		parts[i] = formatValue(v)
	}
	return strings.Join(parts, " ")
}

// DescribeCluster is one measurement's progress line.
func DescribeCluster(r result.ClusterResult) string {
	status := "consistent"
	if !r.Consistent {
		status = "FAILED: " + strings.Join(r.Problems, "; ")
	}
	cpu := r.ComponentCPU()
	var parts []string
	for _, c := range result.Components {
		if cpu[c] > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1f", c, cpu[c]))
		}
	}
	return fmt.Sprintf("%s %s n=%d round %d: creates %.1f/s (p50 %.0f p99 %.0f ms), deletes %.1f/s (p50 %.0f p99 %.0f ms), settled in %.0fs, CPU s %s, %d apiserver restarts, %d readiness flaps, %.0fs; %s",
		r.APIServer, r.Topology, r.N, r.Round, r.CreatesPerSec, r.Create.P50, r.Create.P99, r.DeletesPerSec, r.Delete.P50, r.Delete.P99,
		r.SettleSeconds, strings.Join(parts, ", "), r.TotalRestarts(), r.TotalFlaps(), r.WallSeconds, status)
}
