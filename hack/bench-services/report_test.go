package main

import (
	"bytes"
	"encoding/csv"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wantHeader is the issue's header, spelled out rather than derived from csvHeader.
const wantHeader = "contender,n,workers,cidrs,round,creates_per_s,create_p50_ms,create_p90_ms,create_p99_ms,create_max_ms,deletes_per_s,delete_p99_ms,peak_rss_mb,consistent"

func testResults() []result {
	return []result{
		{Contender: "netfork", N: 1000, Workers: 100, CIDRs: 0, Round: 1, CreatesPerSec: 812.34,
			Create: latencyMS{P50: 10, P90: 20, P99: 30.25, Max: 40}, DeletesPerSec: 900, Delete: latencyMS{P99: 25},
			PeakRSSMB: 300.5, Consistent: true},
		{Contender: "upstream", N: 1000, Workers: 100, CIDRs: 0, Round: 1, CreatesPerSec: 64,
			Create: latencyMS{P50: 100, P90: 200, P99: 3000, Max: 4000}, DeletesPerSec: 70, Delete: latencyMS{P99: 2500},
			PeakRSSMB: 400, Consistent: false, Problems: []string{"IPAddress 10.96.0.9 is orphaned"}},
		{Contender: "netfork", N: 10000, Workers: 100, CIDRs: 0, Round: 1, CreatesPerSec: 700,
			Create: latencyMS{P50: 12, P90: 22, P99: 35, Max: 50}, Consistent: true},
	}
}

func TestCSVHeaderIsExactlyTheIssues(t *testing.T) {
	var b bytes.Buffer
	if err := writeCSVTo(&b, testResults()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != wantHeader {
		t.Fatalf("header\n%s\nwant\n%s", lines[0], wantHeader)
	}
	if want := "netfork,1000,100,0,1,812.3,10.0,20.0,30.2,40.0,900.0,25.0,300.5,true"; lines[1] != want {
		t.Errorf("row\n%s\nwant\n%s", lines[1], want)
	}
	if !strings.HasSuffix(lines[2], ",false") {
		t.Errorf("a failed run's row %q does not end in consistent=false", lines[2])
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
	printSummary(&b, testResults(), contenderNames())
	out := b.String()
	for _, want := range []string{"0.08x", "99.17x", "FAILED"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteChartsIsAPNGPerK(t *testing.T) {
	results := append(testResults(), result{Contender: "netfork", N: 1000, CIDRs: 100, Round: 1, Create: latencyMS{P50: 1, P90: 2, P99: 3}, Consistent: true})
	path := filepath.Join(t.TempDir(), "latency.png")
	written, err := writeCharts(path, results, contenderNames())
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 2 || written[0] != path || !strings.HasSuffix(written[1], "latency-k100.png") {
		t.Fatalf("writeCharts wrote %v, want latency.png and latency-k100.png", written)
	}
	for _, p := range written {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s is not a PNG: %v", p, err)
		}
		f.Close()
	}
}

func TestPlanInterleavesAndRotates(t *testing.T) {
	o := newOptions()
	o.Ns, o.CIDRs, o.Rounds, o.Contenders = []int{1000}, []int{0}, 2, []string{"netfork", "upstream", "floor-headless"}
	var got []string
	for _, s := range plan(o) {
		got = append(got, s.name())
	}
	want := []string{
		"netfork-n1000-k0-r1", "upstream-n1000-k0-r1", "floor-headless-n1000-k0-r1",
		"upstream-n1000-k0-r2", "floor-headless-n1000-k0-r2", "netfork-n1000-k0-r2",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("plan = %v, want %v", got, want)
	}
}
