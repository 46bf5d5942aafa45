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
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netfork/netfork/test/bench/internal/plan"
	"github.com/netfork/netfork/test/bench/internal/result"
)

// wantHeader is the issue's header, then the --apiservers columns, spelled out rather
// than derived from csvHeader.
const wantHeader = "contender,n,workers,cidrs,round,creates_per_s,create_p50_ms,create_p90_ms,create_p99_ms,create_max_ms,deletes_per_s,delete_p99_ms,peak_rss_mb,consistent,apiservers,collisions,etcd_requests_per_create,etcd_requests_per_delete,create_pace_per_s,delete_pace_per_s,live_heap_mb,live_heap_per_service_kb,alloc_per_create_kb,alloc_per_delete_kb,apiserver_cpu_per_create_ms,apiserver_cpu_per_delete_ms,etcd_and_client_cpu_per_create_ms,etcd_and_client_cpu_per_delete_ms,create_only"

func testResults() []result.Result {
	return []result.Result{
		{Contender: "netfork", N: 1000, Workers: 100, CIDRs: 0, Round: 1, CreatesPerSec: 812.34,
			Create: result.LatencyMS{P50: 10, P90: 20, P99: 30.25, Max: 40}, DeletesPerSec: 900, Delete: result.LatencyMS{P99: 25},
			PeakRSSMB: 300.5, Consistent: true, Apiservers: 3, Collisions: 12,
			EtcdPerCreate: map[string]float64{"create services": 1, "create ipaddresses": 1, "update rangeallocations": 0.25},
			EtcdPerDelete: map[string]float64{"get services": 1, "delete services": 1},
			CreatePace:    150, DeletePace: 240.5, LiveHeapMB: 120.25, HeapPerServiceKB: 4.5, AllocPerCreateKB: 38, AllocPerDeleteKB: 12.75,
			CPUPerCreate: result.CPUMS{APIServers: 1.25, Harness: 0.5}, CPUPerDelete: result.CPUMS{APIServers: 0.75, Harness: 0.4375}},
		{Contender: "upstream", N: 1000, Workers: 100, CIDRs: 0, Round: 1, CreatesPerSec: 64,
			Create: result.LatencyMS{P50: 100, P90: 200, P99: 3000, Max: 4000}, DeletesPerSec: 70, Delete: result.LatencyMS{P99: 2500},
			PeakRSSMB: 400, Consistent: false, Problems: []string{"IPAddress 10.96.0.9 is orphaned"}},
		{Contender: "netfork", N: 10000, Workers: 100, CIDRs: 0, Round: 1, CreatesPerSec: 700,
			Create: result.LatencyMS{P50: 12, P90: 22, P99: 35, Max: 50}, Consistent: true},
	}
}

func TestCSVHeaderStartsWithTheIssues(t *testing.T) {
	var b bytes.Buffer
	if err := writeCSVTo(&b, testResults()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != wantHeader {
		t.Fatalf("header\n%s\nwant\n%s", lines[0], wantHeader)
	}
	if want := "netfork,1000,100,0,1,812.3,10.0,20.0,30.2,40.0,900.0,25.0,300.5,true,3,12,2.25,2.00,150.0,240.5,120.2,4.5,38.0,12.8,1.250,0.750,0.500,0.438,false"; lines[1] != want {
		t.Errorf("row\n%s\nwant\n%s", lines[1], want)
	}
	if !strings.Contains(lines[2], ",false,") {
		t.Errorf("a failed run's row %q does not hold consistent=false", lines[2])
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("results.csv does not parse: %v", err)
	}
	for i, row := range rows {
		if len(row) != len(csvHeader) {
			t.Errorf("row %d has %d fields, the header %d", i, len(row), len(csvHeader))
		}
	}
}

func TestSummaryRatiosAndFailures(t *testing.T) {
	var b bytes.Buffer
	PrintSummary(&b, testResults(), plan.ContenderNames())
	out := b.String()
	for _, want := range []string{"0.08x", "99.17x", "FAILED"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestPrintLoad(t *testing.T) {
	results := testResults()
	for i, load := range []float64{2.5, 0.5, 6} {
		results[i].LoadAverage = load
	}
	var b bytes.Buffer
	PrintLoad(&b, results)
	if want := "median 2.5, min 0.5, max 6.0"; !strings.Contains(b.String(), want) {
		t.Errorf("load line %q lacks %q", b.String(), want)
	}
}

func TestChartDataIsMediansPerK(t *testing.T) {
	results := append(testResults(),
		result.Result{Contender: "netfork", N: 1000, CIDRs: 0, Round: 2, Create: result.LatencyMS{P50: 14, P90: 24, P99: 50}, Consistent: true},
		result.Result{Contender: "netfork", N: 1000, CIDRs: 0, Round: 3, Create: result.LatencyMS{P50: 12, P90: 21, P99: 31}, Consistent: true},
		result.Result{Contender: "netfork", N: 1000, CIDRs: 100, Round: 1, Create: result.LatencyMS{P50: 1, P90: 2, P99: 3}, Consistent: true})
	got := chartsOf(results, []string{"netfork", "upstream"})
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(got); err != nil {
		t.Fatal(err)
	}
	// netfork at N=1000, K=0: medians of 10/14/12, 20/24/21, 30.25/50/31; upstream has no
	// run at N=10000 (null) and an inconsistent one at N=1000 (failed).
	want := `{"charts":[` +
		`{"cidrs":0,"ns":[1000,10000],"series":[` +
		`{"contender":"netfork","p50_ms":[12,12],"p90_ms":[21,22],"p99_ms":[31,35],"failed":false},` +
		`{"contender":"upstream","p50_ms":[100,null],"p90_ms":[200,null],"p99_ms":[3000,null],"failed":true}]},` +
		`{"cidrs":100,"ns":[1000],"series":[` +
		`{"contender":"netfork","p50_ms":[1],"p90_ms":[2],"p99_ms":[3],"failed":false},` +
		`{"contender":"upstream","p50_ms":[null],"p90_ms":[null],"p99_ms":[null],"failed":false}]}]}`
	if strings.TrimSpace(b.String()) != want {
		t.Errorf("chart data\n%s\nwant\n%s", b.String(), want)
	}
}

func TestDrawChartsNamesTheBinaryOnFailure(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "chart.json"), filepath.Join(dir, "latency.png")
	if got, err := DrawCharts(context.Background(), "", in, out); err != nil || got != nil {
		t.Fatalf("DrawCharts without a binary = %v, %v; want nothing drawn", got, err)
	}
	missing := filepath.Join(dir, "no-bench-chart")
	if _, err := DrawCharts(context.Background(), missing, in, out); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("DrawCharts with a missing binary = %v, want an error naming it", err)
	}
}

func TestSummaryShowsNoDeletesOfCreateOnlyRuns(t *testing.T) {
	runs := []result.Result{
		{Contender: "upstream", N: 10000, Round: 1, CreatesPerSec: 66, CreateOnly: true, Consistent: true,
			EtcdPerCreate: map[string]float64{"create services": 1}, CPUPerCreate: result.CPUMS{APIServers: 9.5, Harness: 1.25}},
		{Contender: "upstream", N: 10000, Round: 2, CreatesPerSec: 70, CreateOnly: true, Consistent: true,
			CPUPerCreate: result.CPUMS{APIServers: 9.5, Harness: 1.25}},
	}
	var b bytes.Buffer
	PrintSummary(&b, runs, []string{"upstream"})
	PrintSpread(&b, runs, []string{"upstream"})
	var row, spreadRow []string
	for _, line := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[2] == "upstream" {
			if row == nil {
				row = f
			} else {
				spreadRow = f
			}
		}
	}
	// n cidrs contender creates/s vs p50 p90 p99 vs max deletes/s del-p99 RSS heap heap/svc
	// alloc/create alloc/delete cpu/create cpu/delete collisions etcd/create etcd/delete
	if len(row) < 22 || row[10] != "-" || row[11] != "-" || row[16] != "-" || row[18] != "-" || row[21] != "-" || row[17] != "9.50+1.25" {
		t.Errorf("summary row %q: want - for every delete measure and 9.50+1.25 ms CPU per create", row)
	}
	// n cidrs contender rounds creates/s CV deletes/s CV
	if len(spreadRow) < 8 || spreadRow[4] != "66-70" || spreadRow[6] != "-" || spreadRow[7] != "-" {
		t.Errorf("spread row %q: want creates 66-70 and - for deletes", spreadRow)
	}
}

func TestDescribeACreateOnlyRunSaysNothingOfDeleting(t *testing.T) {
	r := result.Result{Contender: "netfork-upstream-pace", N: 10000, Round: 1, CreateOnly: true, CreatePace: 82, CreatesPerSec: 82,
		AllocPerCreateKB: 205, CPUPerCreate: result.CPUMS{APIServers: 5, Harness: 2.5}, Consistent: true,
		EtcdPerCreate: map[string]float64{"create services": 1}}
	got := Describe(r)
	for _, want := range []string{"paced at 82/s:", "no delete phase", "allocated 205.0 KB per create,", "CPU per create 5.00 ms apiserver + 2.50 ms etcd and client,", "etcd requests per create 1.00,"} {
		if !strings.Contains(got, want) {
			t.Errorf("Describe = %q, lacks %q", got, want)
		}
	}
	if strings.Contains(got, "per delete") || strings.Contains(got, "deletes ") || strings.Contains(got, "/s and") {
		t.Errorf("Describe = %q speaks of deletes", got)
	}
	r.CreateOnly = false
	if got := Describe(r); !strings.Contains(got, "per delete") {
		t.Errorf("Describe of a run that deleted = %q, lacks its deletes", got)
	}
}
