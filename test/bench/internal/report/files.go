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
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/netfork/netfork/test/bench/internal/result"
	"github.com/netfork/netfork/test/bench/internal/stats"
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
func csvRecord(r result.Result) []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	f3 := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	return []string{
		r.Contender, strconv.Itoa(r.N), strconv.Itoa(r.Workers), strconv.Itoa(r.CIDRs), strconv.Itoa(r.Round),
		f(r.CreatesPerSec), f(r.Create.P50), f(r.Create.P90), f(r.Create.P99), f(r.Create.Max),
		f(r.DeletesPerSec), f(r.Delete.P99), f(r.PeakRSSMB), strconv.FormatBool(r.Consistent),
		strconv.Itoa(r.Apiservers), strconv.FormatInt(r.Collisions, 10),
		strconv.FormatFloat(stats.Sum(r.EtcdPerCreate), 'f', 2, 64), strconv.FormatFloat(stats.Sum(r.EtcdPerDelete), 'f', 2, 64),
		f(r.CreatePace), f(r.DeletePace), f(r.LiveHeapMB), f(r.HeapPerServiceKB), f(r.AllocPerCreateKB), f(r.AllocPerDeleteKB),
		f3(r.CPUPerCreate.APIServers), f3(r.CPUPerDelete.APIServers), f3(r.CPUPerCreate.Harness), f3(r.CPUPerDelete.Harness),
		strconv.FormatBool(r.CreateOnly),
	}
}

// writeCSVTo writes the header and one row per result.
func writeCSVTo(w io.Writer, results []result.Result) error {
	rows := make([][]string, len(results))
	for i, r := range results {
		rows[i] = csvRecord(r)
	}
	return writeRows(w, csvHeader, rows)
}

// writeRows writes a CSV table: the header, then the rows.
func writeRows(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}

// WriteCSV replaces path with the results so far, through a temporary file so a reader
// never sees half a table.
func WriteCSV(path string, results []result.Result) error {
	return writeFileAtomic(path, func(w io.Writer) error { return writeCSVTo(w, results) })
}

// WriteJSON writes every measurement, including what the CSV leaves out.
func WriteJSON(path string, results []result.Result) error {
	return writeIndentedJSON(path, results)
}

// writeIndentedJSON replaces path with v as indented JSON.
func writeIndentedJSON(path string, v any) error {
	return writeFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// readJSONList reads a JSON list bench-services wrote to path; name is the file's kind,
// for the error when it is not one (e.g. results.json).
func readJSONList[T any](path, name string) ([]T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []T
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s is not a %s of bench-services: %w", path, name, err)
	}
	return list, nil
}

// readResults reads a results.json that WriteJSON wrote.
func readResults(path string) ([]result.Result, error) {
	results, err := readJSONList[result.Result](path, "results.json")
	if err != nil {
		return nil, err
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("%s holds no run", path)
	}
	return results, nil
}

// Report prints the targets table and the load of the runs in the results.json files at
// paths, taken together, and returns how many of those runs were not consistent: --report.
func Report(paths []string, w io.Writer) (int, error) {
	var all []result.Result
	for i, p := range paths {
		results, err := readResults(p)
		if err != nil {
			return 0, err
		}
		for j := range results {
			results[j].Source = i
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
	PrintTargets(w, all)
	PrintLoad(w, all)
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
