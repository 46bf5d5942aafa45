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
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/netfork/netfork/test/bench/internal/result"
	"github.com/netfork/netfork/test/bench/internal/stats"
)

// baselineContender is the contender every ratio in the summary is to.
const baselineContender = "netfork"

// Describe is one run's progress line.
func Describe(r result.Result) string {
	status := "consistent"
	if !r.Consistent {
		status = "FAILED: " + strings.Join(r.Problems, "; ")
	}
	spread := ""
	if r.CIDRs > 0 {
		spread = fmt.Sprintf(", %d ClusterIPs in extra CIDRs", r.InExtraCIDRs)
	}
	pace := ""
	switch {
	case r.CreateOnly && r.CreatePace > 0:
		pace = fmt.Sprintf(" paced at %.0f/s", r.CreatePace)
	case r.CreatePace > 0 || r.DeletePace > 0:
		pace = fmt.Sprintf(" paced at %.0f/s and %.0f/s", r.CreatePace, r.DeletePace)
	}
	deletes := fmt.Sprintf("deletes %.0f/s (p50 %.1f p99 %.1f ms)", r.DeletesPerSec, r.Delete.P50, r.Delete.P99)
	allocated := fmt.Sprintf("allocated %.1f KB per create and %.1f KB per delete", r.AllocPerCreateKB, r.AllocPerDeleteKB)
	cpu := fmt.Sprintf("CPU per create %.2f ms apiserver + %.2f ms etcd and client, per delete %.2f + %.2f ms",
		r.CPUPerCreate.APIServers, r.CPUPerCreate.Harness, r.CPUPerDelete.APIServers, r.CPUPerDelete.Harness)
	etcd := fmt.Sprintf("etcd requests per create %.2f and per delete %.2f", stats.Sum(r.EtcdPerCreate), stats.Sum(r.EtcdPerDelete))
	if r.CreateOnly {
		deletes = "no delete phase"
		allocated = fmt.Sprintf("allocated %.1f KB per create", r.AllocPerCreateKB)
		cpu = fmt.Sprintf("CPU per create %.2f ms apiserver + %.2f ms etcd and client", r.CPUPerCreate.APIServers, r.CPUPerCreate.Harness)
		etcd = fmt.Sprintf("etcd requests per create %.2f", stats.Sum(r.EtcdPerCreate))
	}
	return fmt.Sprintf("%s n=%d k=%d round %d%s: creates %.0f/s (p50 %.1f p90 %.1f p99 %.1f max %.1f ms), %s, peak RSS %.0f MB, live heap %.0f MB (%.1f KB per Service), %s, %s%s, %d collisions, %s, %.0fs, load %.1f at start; %s",
		r.Contender, r.N, r.CIDRs, r.Round, pace, r.CreatesPerSec, r.Create.P50, r.Create.P90, r.Create.P99, r.Create.Max,
		deletes, r.PeakRSSMB, r.LiveHeapMB, r.HeapPerServiceKB, allocated, cpu,
		spread, r.Collisions, etcd, r.WallSeconds, r.LoadAverage, status)
}

// cell is one (N, K) pair of the matrix.
type cell struct{ n, cidrs int }

// cells lists the matrix's (N, K) pairs in the order they ran.
func cells(results []result.Result) []cell {
	var out []cell
	for _, r := range results {
		if c := (cell{r.N, r.CIDRs}); !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// aggregate is a contender's runs of one cell, reduced to medians across rounds.
type aggregate struct {
	// rounds counts the runs; deleteRounds those that had a delete phase, which the
	// delete measures are medians of.
	rounds, deleteRounds                int
	createsPerSec, p50, p90, p99, max   float64
	deletesPerSec, deleteP99, peakRSSMB float64
	collisions                          float64
	etcdPerCreate, etcdPerDelete        float64
	liveHeapMB, heapPerServiceKB        float64
	allocPerCreateKB, allocPerDeleteKB  float64
	cpuPerCreate, cpuPerDelete          result.CPUMS
	consistent                          bool
	// createsPerSecAll, deletesPerSecAll and peakRSSMBAll are every round's values, for the spread.
	createsPerSecAll, deletesPerSecAll, peakRSSMBAll []float64
}

// aggregateOf reduces a contender's runs of a cell; ok is false when it has none.
func aggregateOf(results []result.Result, contender string, c cell) (aggregate, bool) {
	a := aggregate{consistent: true}
	var p50, p90, p99, mx, dp99, collisions, etcdCreate, etcdDelete []float64
	var heap, heapPer, allocCreate, allocDelete []float64
	var cpuCreate, cpuCreateHarness, cpuDelete, cpuDeleteHarness []float64
	for _, r := range results {
		if r.Contender != contender || r.N != c.n || r.CIDRs != c.cidrs {
			continue
		}
		a.rounds++
		a.consistent = a.consistent && r.Consistent
		a.createsPerSecAll = append(a.createsPerSecAll, r.CreatesPerSec)
		p50, p90, p99, mx = append(p50, r.Create.P50), append(p90, r.Create.P90), append(p99, r.Create.P99), append(mx, r.Create.Max)
		a.peakRSSMBAll = append(a.peakRSSMBAll, r.PeakRSSMB)
		collisions = append(collisions, float64(r.Collisions))
		etcdCreate = append(etcdCreate, stats.Sum(r.EtcdPerCreate))
		heap, heapPer = append(heap, r.LiveHeapMB), append(heapPer, r.HeapPerServiceKB)
		allocCreate = append(allocCreate, r.AllocPerCreateKB)
		cpuCreate, cpuCreateHarness = append(cpuCreate, r.CPUPerCreate.APIServers), append(cpuCreateHarness, r.CPUPerCreate.Harness)
		if r.CreateOnly {
			continue
		}
		a.deleteRounds++
		a.deletesPerSecAll, dp99 = append(a.deletesPerSecAll, r.DeletesPerSec), append(dp99, r.Delete.P99)
		etcdDelete, allocDelete = append(etcdDelete, stats.Sum(r.EtcdPerDelete)), append(allocDelete, r.AllocPerDeleteKB)
		cpuDelete, cpuDeleteHarness = append(cpuDelete, r.CPUPerDelete.APIServers), append(cpuDeleteHarness, r.CPUPerDelete.Harness)
	}
	a.createsPerSec, a.p50, a.p90, a.p99, a.max = stats.Median(a.createsPerSecAll), stats.Median(p50), stats.Median(p90), stats.Median(p99), stats.Median(mx)
	a.deletesPerSec, a.deleteP99, a.peakRSSMB = stats.Median(a.deletesPerSecAll), stats.Median(dp99), stats.Median(a.peakRSSMBAll)
	a.collisions = stats.Median(collisions)
	a.etcdPerCreate, a.etcdPerDelete = stats.Median(etcdCreate), stats.Median(etcdDelete)
	a.liveHeapMB, a.heapPerServiceKB = stats.Median(heap), stats.Median(heapPer)
	a.allocPerCreateKB, a.allocPerDeleteKB = stats.Median(allocCreate), stats.Median(allocDelete)
	a.cpuPerCreate = result.CPUMS{APIServers: stats.Median(cpuCreate), Harness: stats.Median(cpuCreateHarness)}
	a.cpuPerDelete = result.CPUMS{APIServers: stats.Median(cpuDelete), Harness: stats.Median(cpuDeleteHarness)}
	return a, a.rounds > 0
}

// ratio formats a/b, or "-" when b is zero.
func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

// PrintSummary prints one line per contender and cell, medians across rounds, with each
// contender's creates/s and p99 as ratios to netfork's.
func PrintSummary(w io.Writer, results []result.Result, contenders []string) {
	fmt.Fprintf(w, "\nsummary (median over rounds; ratios are to netfork in the same cell; FAILED = not consistent in some round; %s):\n", apiserversOf(results))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "n\tcidrs\tcontender\tcreates/s\tvs netfork\tp50 ms\tp90 ms\tp99 ms\tp99 vs netfork\tmax ms\tdeletes/s\tdel p99 ms\tpeak RSS MB\tlive heap MB\theap/svc KB\talloc/create KB\talloc/delete KB\tcpu/create ms (apiserver+etcd,client)\tcpu/delete ms\tcollisions\tetcd/create\tetcd/delete\tconsistent\t")
	for _, c := range cells(results) {
		base, hasBase := aggregateOf(results, baselineContender, c)
		for _, name := range contenders {
			a, ok := aggregateOf(results, name, c)
			if !ok {
				continue
			}
			vsRate, vsP99 := "-", "-"
			if hasBase {
				vsRate, vsP99 = ratio(a.createsPerSec, base.createsPerSec), ratio(a.p99, base.p99)
			}
			status := "true"
			if !a.consistent {
				status = "FAILED"
			}
			deletesPerSec, deleteP99, allocDelete, cpuDelete, etcdDelete := "-", "-", "-", "-", "-"
			if a.deleteRounds > 0 {
				deletesPerSec, deleteP99, allocDelete = fmt.Sprintf("%.0f", a.deletesPerSec), fmt.Sprintf("%.1f", a.deleteP99), fmt.Sprintf("%.1f", a.allocPerDeleteKB)
				cpuDelete, etcdDelete = a.cpuPerDelete.String(), fmt.Sprintf("%.2f", a.etcdPerDelete)
			}
			fmt.Fprintf(tw, "%d\t%d\t%s\t%.0f\t%s\t%.1f\t%.1f\t%.1f\t%s\t%.1f\t%s\t%s\t%.0f\t%.0f\t%.2f\t%.1f\t%s\t%s\t%s\t%.0f\t%.2f\t%s\t%s\t\n",
				c.n, c.cidrs, name, a.createsPerSec, vsRate, a.p50, a.p90, a.p99, vsP99, a.max,
				deletesPerSec, deleteP99, a.peakRSSMB, a.liveHeapMB, a.heapPerServiceKB, a.allocPerCreateKB, allocDelete,
				a.cpuPerCreate, cpuDelete, a.collisions, a.etcdPerCreate, etcdDelete, status)
		}
	}
	_ = tw.Flush() // Writes to stdout; nothing to do if that fails.
}

// apiserversOf says how many apiservers each run had, which --apiservers sets for the
// whole benchmark; peak RSS is their sum.
func apiserversOf(results []result.Result) string {
	if len(results) == 0 || results[0].Apiservers <= 1 {
		return "one apiserver per run"
	}
	return fmt.Sprintf("%d apiservers per run on one etcd, workers spread over them; peak RSS is their sum", results[0].Apiservers)
}

// PrintSpread prints how creates/s, deletes/s and peak RSS varied across rounds, the
// machine's noise: min-max and the coefficient of variation.
func PrintSpread(w io.Writer, results []result.Result, contenders []string) {
	fmt.Fprintln(w, "\nspread across rounds (min-max, coefficient of variation):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "n\tcidrs\tcontender\trounds\tcreates/s\tCV\tdeletes/s\tCV\tpeak RSS MB\tCV\t")
	for _, c := range cells(results) {
		for _, name := range contenders {
			a, ok := aggregateOf(results, name, c)
			if !ok {
				continue
			}
			fmt.Fprintf(tw, "%d\t%d\t%s\t%d\t", c.n, c.cidrs, name, a.rounds)
			for _, values := range [][]float64{a.createsPerSecAll, a.deletesPerSecAll, a.peakRSSMBAll} {
				if len(values) == 0 { // Deletes of create-only runs.
					fmt.Fprint(tw, "-\t-\t")
					continue
				}
				s := stats.SpreadOf(values)
				cv := "-"
				if len(values) > 1 {
					cv = fmt.Sprintf("%.1f%%", 100*s.CV)
				}
				fmt.Fprintf(tw, "%.0f-%.0f\t%s\t", s.Min, s.Max, cv)
			}
			fmt.Fprintln(tw)
		}
	}
	_ = tw.Flush() // Writes to stdout; nothing to do if that fails.
}

// PrintLoad prints the machine's 1-minute load average at the runs' starts, since other
// work on a shared machine shows in every number above.
func PrintLoad(w io.Writer, results []result.Result) {
	loads := make([]float64, len(results))
	for i, r := range results {
		loads[i] = r.LoadAverage
	}
	s := stats.SpreadOf(loads)
	fmt.Fprintf(w, "\nload average (1 min) at the runs' starts: median %.1f, min %.1f, max %.1f\n", stats.Median(loads), s.Min, s.Max)
}
