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
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// csvHeader is results.csv's header: the columns, then the later ones, so a
// reader of the first ones by position still reads them.
var csvHeader = []string{
	"contender", "n", "workers", "cidrs", "round",
	"creates_per_s", "create_p50_ms", "create_p90_ms", "create_p99_ms", "create_max_ms",
	"deletes_per_s", "delete_p99_ms", "peak_rss_mb", "consistent",
	"apiservers", "collisions", "etcd_requests_per_create", "etcd_requests_per_delete",
	"create_pace_per_s", "delete_pace_per_s", "live_heap_mb", "live_heap_per_service_kb", "alloc_per_create_kb", "alloc_per_delete_kb",
	"apiserver_cpu_per_create_ms", "apiserver_cpu_per_delete_ms", "etcd_and_client_cpu_per_create_ms", "etcd_and_client_cpu_per_delete_ms",
	"create_only",
}

// csvRecord is one result as a results.csv row, in csvHeader's order.
func csvRecord(r result) []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	f3 := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	return []string{
		r.Contender, strconv.Itoa(r.N), strconv.Itoa(r.Workers), strconv.Itoa(r.CIDRs), strconv.Itoa(r.Round),
		f(r.CreatesPerSec), f(r.Create.P50), f(r.Create.P90), f(r.Create.P99), f(r.Create.Max),
		f(r.DeletesPerSec), f(r.Delete.P99), f(r.PeakRSSMB), strconv.FormatBool(r.Consistent),
		strconv.Itoa(r.Apiservers), strconv.FormatInt(r.Collisions, 10),
		strconv.FormatFloat(sumValues(r.EtcdPerCreate), 'f', 2, 64), strconv.FormatFloat(sumValues(r.EtcdPerDelete), 'f', 2, 64),
		f(r.CreatePace), f(r.DeletePace), f(r.LiveHeapMB), f(r.HeapPerServiceKB), f(r.AllocPerCreateKB), f(r.AllocPerDeleteKB),
		f3(r.CPUPerCreate.APIServers), f3(r.CPUPerDelete.APIServers), f3(r.CPUPerCreate.Harness), f3(r.CPUPerDelete.Harness),
		strconv.FormatBool(r.CreateOnly),
	}
}

// writeCSVTo writes the header and one row per result.
func writeCSVTo(w io.Writer, results []result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, r := range results {
		if err := cw.Write(csvRecord(r)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeCSV replaces path with the results so far, through a temporary file so a reader
// never sees half a table.
func writeCSV(path string, results []result) error {
	return writeFileAtomic(path, func(w io.Writer) error { return writeCSVTo(w, results) })
}

// writeJSON writes every measurement, including what the CSV leaves out.
func writeJSON(path string, results []result) error {
	return writeFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	})
}

// readResults reads a results.json that writeJSON wrote.
func readResults(path string) ([]result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var results []result
	if err := json.Unmarshal(data, &results); err != nil {
		return nil, fmt.Errorf("%s is not a results.json of bench-services: %w", path, err)
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("%s holds no run", path)
	}
	return results, nil
}

// report prints the targets table and the load of the runs in the results.json files at
// paths, taken together, and returns how many of those runs were not consistent.
func report(paths []string, w io.Writer) (int, error) {
	var all []result
	for i, p := range paths {
		results, err := readResults(p)
		if err != nil {
			return 0, err
		}
		for j := range results {
			results[j].source = i
		}
		all = append(all, results...)
	}
	failed := 0
	for _, r := range all {
		if !r.Consistent {
			failed++
		}
	}
	fmt.Fprintf(w, "%d runs from %s\n", len(all), strings.Join(paths, ", "))
	printTargets(w, all)
	printLoad(w, all)
	return failed, nil
}

// writeFileAtomic writes path's new content next to it and renames it into place.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// describe is one run's progress line.
func describe(r result) string {
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
	etcd := fmt.Sprintf("etcd requests per create %.2f and per delete %.2f", sumValues(r.EtcdPerCreate), sumValues(r.EtcdPerDelete))
	if r.CreateOnly {
		deletes = "no delete phase"
		allocated = fmt.Sprintf("allocated %.1f KB per create", r.AllocPerCreateKB)
		cpu = fmt.Sprintf("CPU per create %.2f ms apiserver + %.2f ms etcd and client", r.CPUPerCreate.APIServers, r.CPUPerCreate.Harness)
		etcd = fmt.Sprintf("etcd requests per create %.2f", sumValues(r.EtcdPerCreate))
	}
	return fmt.Sprintf("%s n=%d k=%d round %d%s: creates %.0f/s (p50 %.1f p90 %.1f p99 %.1f max %.1f ms), %s, peak RSS %.0f MB, live heap %.0f MB (%.1f KB per Service), %s, %s%s, %d collisions, %s, %.0fs, load %.1f at start; %s",
		r.Contender, r.N, r.CIDRs, r.Round, pace, r.CreatesPerSec, r.Create.P50, r.Create.P90, r.Create.P99, r.Create.Max,
		deletes, r.PeakRSSMB, r.LiveHeapMB, r.HeapPerServiceKB, allocated, cpu,
		spread, r.Collisions, etcd, r.WallSeconds, r.LoadAverage, status)
}

// String spells CPU per Service in the summary: the apiservers' and, after the plus, the
// benchmark's etcd and client workers'.
func (c cpuMS) String() string {
	return fmt.Sprintf("%.2f+%.2f", c.APIServers, c.Harness)
}

// cell is one (N, K) pair of the matrix.
type cell struct{ n, cidrs int }

// cells lists the matrix's (N, K) pairs in the order they ran.
func cells(results []result) []cell {
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
	cpuPerCreate, cpuPerDelete          cpuMS
	consistent                          bool
	// createsPerSecAll, deletesPerSecAll and peakRSSMBAll are every round's values, for the spread.
	createsPerSecAll, deletesPerSecAll, peakRSSMBAll []float64
}

// aggregateOf reduces a contender's runs of a cell; ok is false when it has none.
func aggregateOf(results []result, contender string, c cell) (aggregate, bool) {
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
		etcdCreate = append(etcdCreate, sumValues(r.EtcdPerCreate))
		heap, heapPer = append(heap, r.LiveHeapMB), append(heapPer, r.HeapPerServiceKB)
		allocCreate = append(allocCreate, r.AllocPerCreateKB)
		cpuCreate, cpuCreateHarness = append(cpuCreate, r.CPUPerCreate.APIServers), append(cpuCreateHarness, r.CPUPerCreate.Harness)
		if r.CreateOnly {
			continue
		}
		a.deleteRounds++
		a.deletesPerSecAll, dp99 = append(a.deletesPerSecAll, r.DeletesPerSec), append(dp99, r.Delete.P99)
		etcdDelete, allocDelete = append(etcdDelete, sumValues(r.EtcdPerDelete)), append(allocDelete, r.AllocPerDeleteKB)
		cpuDelete, cpuDeleteHarness = append(cpuDelete, r.CPUPerDelete.APIServers), append(cpuDeleteHarness, r.CPUPerDelete.Harness)
	}
	a.createsPerSec, a.p50, a.p90, a.p99, a.max = median(a.createsPerSecAll), median(p50), median(p90), median(p99), median(mx)
	a.deletesPerSec, a.deleteP99, a.peakRSSMB = median(a.deletesPerSecAll), median(dp99), median(a.peakRSSMBAll)
	a.collisions = median(collisions)
	a.etcdPerCreate, a.etcdPerDelete = median(etcdCreate), median(etcdDelete)
	a.liveHeapMB, a.heapPerServiceKB = median(heap), median(heapPer)
	a.allocPerCreateKB, a.allocPerDeleteKB = median(allocCreate), median(allocDelete)
	a.cpuPerCreate = cpuMS{APIServers: median(cpuCreate), Harness: median(cpuCreateHarness)}
	a.cpuPerDelete = cpuMS{APIServers: median(cpuDelete), Harness: median(cpuDeleteHarness)}
	return a, a.rounds > 0
}

// ratio formats a/b, or "-" when b is zero.
func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

// printSummary prints one line per contender and cell, medians across rounds, with each
// contender's creates/s and p99 as ratios to netfork's.
func printSummary(w io.Writer, results []result, contenders []string) {
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
func apiserversOf(results []result) string {
	if len(results) == 0 || results[0].Apiservers <= 1 {
		return "one apiserver per run"
	}
	return fmt.Sprintf("%d apiservers per run on one etcd, workers spread over them; peak RSS is their sum", results[0].Apiservers)
}

// printSpread prints how creates/s, deletes/s and peak RSS varied across rounds, the
// machine's noise: min-max and the coefficient of variation.
func printSpread(w io.Writer, results []result, contenders []string) {
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
				s := spreadOf(values)
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

// printLoad prints the machine's 1-minute load average at the runs' starts, since other
// work on a shared machine shows in every number above.
func printLoad(w io.Writer, results []result) {
	loads := make([]float64, len(results))
	for i, r := range results {
		loads[i] = r.LoadAverage
	}
	s := spreadOf(loads)
	fmt.Fprintf(w, "\nload average (1 min) at the runs' starts: median %.1f, min %.1f, max %.1f\n", median(loads), s.Min, s.Max)
}
