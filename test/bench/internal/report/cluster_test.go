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
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/netfork/netfork/test/bench/internal/result"
)

// clusterResult is a measurement with the given rates and apiserver CPU seconds.
func clusterResult(apiserver string, round int, creates, deletes, apiserverCPU float64) result.ClusterResult {
	return result.ClusterResult{
		APIServer: apiserver, Topology: "single", N: 1000, Workers: 10, Round: round,
		CreatesPerSec: creates, DeletesPerSec: deletes, Consistent: true,
		CreateCPU:   map[string]float64{"c-control-plane/kube-apiserver": apiserverCPU, "c-control-plane/etcd": 1},
		DeleteCPU:   map[string]float64{"c-control-plane/kube-apiserver": apiserverCPU, "c-worker/kube-proxy": 0.5},
		CreateCurve: []float64{creates * 2, creates},
		Restarts:    map[string]int32{"kube-apiserver-c-control-plane": int32(round - 1)},
	}
}

// row finds the table line that starts with name and returns its cells.
func row(t *testing.T, table, name string) []string {
	t.Helper()
	for line := range strings.Lines(table) {
		if strings.HasPrefix(line, name+"  ") {
			return regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
		}
	}
	t.Fatalf("no row %q in\n%s", name, table)
	return nil
}

func TestClusterTableRatiosPairRounds(t *testing.T) {
	results := []result.ClusterResult{
		// Interleaved as kind/bench.sh runs them; round 2's upstream is slow, so the
		// ratio's spread must come from pairing rounds, not from the medians.
		clusterResult("netfork", 1, 40, 20, 10), clusterResult("upstream", 1, 20, 20, 20),
		clusterResult("netfork", 2, 30, 20, 10), clusterResult("upstream", 2, 10, 10, 20),
		clusterResult("netfork", 3, 50, 20, 10), clusterResult("upstream", 3, 25, 20, 20),
	}
	var out bytes.Buffer
	PrintClusterTable(&out, results)
	table := out.String()
	if !strings.Contains(table, "single, N=1000") || !strings.Contains(table, "netfork (3 rounds, 3 consistent)") {
		t.Errorf("table lacks its heading or a column's rounds:\n%s", table)
	}
	for name, want := range map[string][]string{
		// medians 40 and 20; per-round ratios 2, 3, 2
		"creates/s": {"creates/s", "40 (30-50)", "20 (10-25)", "2.00x (2.00-3.00)"},
		// upstream's round-2 deletes are half as fast: per-round ratios 1, 2, 1
		"deletes/s":                     {"deletes/s", "20 (20-20)", "20 (10-20)", "1.00x (1.00-2.00)"},
		"CPU s kube-apiserver":          {"CPU s kube-apiserver", "20 (20-20)", "40 (40-40)", "0.50x (0.50-0.50)"},
		"CPU s kube-proxy":              {"CPU s kube-proxy", "0.5 (0.5-0.5)", "0.5 (0.5-0.5)", "1.00x (1.00-1.00)"},
		"apiserver restarts":            {"apiserver restarts", "1 (0-2)", "1 (0-2)", "1.00x (1.00-1.00)"},
		"CPU s kube-controller-manager": {"CPU s kube-controller-manager", "0 (0-0)", "0 (0-0)", "-"},
	} {
		got := row(t, table, name)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("row %s = %q, want %q", name, got, want)
		}
	}
	if !strings.Contains(table, "netfork creates/s per 10% of N (median over rounds): 80 40") {
		t.Errorf("table lacks netfork's median create curve:\n%s", table)
	}
}

func TestAppendClusterResultKeepsEarlierMeasurements(t *testing.T) {
	dir := t.TempDir()
	jsonPath, csvPath := filepath.Join(dir, "cluster-results.json"), filepath.Join(dir, "cluster-results.csv")
	for i, r := range []result.ClusterResult{clusterResult("netfork", 1, 40, 20, 10), clusterResult("upstream", 1, 20, 20, 20)} {
		all, err := AppendClusterResult(jsonPath, csvPath, r)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != i+1 {
			t.Fatalf("after %d appends the file holds %d measurements", i+1, len(all))
		}
	}
	data, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "apiserver,topology,n,") || !strings.HasPrefix(lines[2], "upstream,single,1000,10,1,20.0,") {
		t.Errorf("cluster-results.csv =\n%s", data)
	}
	if !strings.Contains(lines[0], "cpu_s_kube_apiserver") || !strings.Contains(lines[1], ",20.00,1.00,0.00,") {
		t.Errorf("cluster-results.csv lacks the CPU columns (kube-apiserver 20 s, etcd 1 s):\n%s", data)
	}
	var out bytes.Buffer
	failed, err := ClusterReport([]string{jsonPath}, &out)
	if err != nil || failed != 0 || !strings.Contains(out.String(), "netfork/upstream") {
		t.Errorf("ClusterReport = %d, %v:\n%s", failed, err, out.String())
	}
	if err := os.WriteFile(jsonPath, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ClusterReport([]string{jsonPath}, &out); err == nil || !strings.Contains(err.Error(), "is not a cluster-results.json") {
		t.Errorf("ClusterReport of a broken file: %v", err)
	}
}
