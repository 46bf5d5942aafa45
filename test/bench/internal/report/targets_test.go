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
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/netfork/netfork/test/bench/internal/plan"
	"github.com/netfork/netfork/test/bench/internal/result"
	"github.com/netfork/netfork/test/bench/internal/stats"
)

// deleteRuns are netfork and the floor at 10k over three rounds: netfork's deletes/s are
// 0.5x, 0.9x and 0.7x the floor's, and round 3's floor run is not consistent.
func deleteRuns() []result.Result {
	run := func(contender string, round int, dps float64, consistent bool) result.Result {
		return result.Result{Contender: contender, N: 10000, Round: round, DeletesPerSec: dps, Delete: result.LatencyMS{P99: 100}, Consistent: consistent}
	}
	return []result.Result{
		run("netfork", 1, 500, true), run("floor-headless", 1, 1000, true),
		run("netfork", 2, 900, true), run("floor-headless", 2, 1000, true),
		run("netfork", 3, 700, true), run("floor-headless", 3, 1000, false),
	}
}

// findTarget is the evaluated target named what whose first run is num.
func findTarget(t *testing.T, trs []targetResult, what string, num runRef) targetResult {
	t.Helper()
	for _, tr := range trs {
		if tr.what == what && tr.num == num {
			return tr
		}
	}
	t.Fatalf("no evaluated target %q of %s among %+v", what, num, trs)
	return targetResult{}
}

func TestTargetsPairRunsOfTheSameRound(t *testing.T) {
	trs := evaluateTargets(deleteRuns())
	// Only the targets at 10k of netfork alone or against the floor have their sides here:
	// etcd requests per create and per delete, creates/s, deletes/s, create and delete p99,
	// allocated per create and per delete.
	if len(trs) != 8 {
		t.Fatalf("evaluated %d targets, want the eight at 10k: %+v", len(trs), trs)
	}
	dps := findTarget(t, trs, "deletes/s vs floor", ref("netfork", 10000, 0))
	if len(dps.ratios) != 2 || dps.ratios[0] != 0.5 || dps.ratios[1] != 0.9 || dps.skipped != 1 {
		t.Errorf("deletes/s target = %+v, want ratios 0.5 and 0.9 and round 3 skipped", dps)
	}
	// The median of 0.5 and 0.9 is 0.7, under 0.9.
	if dps.met() {
		t.Errorf("a median of 0.70x met a bound of >= 0.9x")
	}
	if p99 := findTarget(t, trs, "delete p99 vs floor", ref("netfork", 10000, 0)); !p99.met() || stats.Median(p99.ratios) != 1 {
		t.Errorf("delete p99 target = %+v, want 1.00x, met under 1.25x", p99)
	}
}

func TestAbsoluteTargetsBoundEachConsistentRun(t *testing.T) {
	run := func(round int, perCreate float64, consistent bool) result.Result {
		return result.Result{Contender: "netfork", N: 100000, Round: round, Consistent: consistent,
			EtcdPerCreate: map[string]float64{"create services": 1, "create ipaddresses": perCreate}}
	}
	unread := run(4, 0, true)
	unread.EtcdPerCreate = nil // Its counters could not be read.
	trs := evaluateTargets([]result.Result{run(1, 0.05, true), run(2, 0.2, true), run(3, 0, false), unread})
	perCreate := findTarget(t, trs, "etcd requests per create", ref("netfork", 100000, 0))
	if len(perCreate.ratios) != 2 || perCreate.ratios[0] != 1.05 || perCreate.ratios[1] != 1.2 || perCreate.skipped != 2 {
		t.Fatalf("etcd per create = %+v, want 1.05 and 1.2 with rounds 3 (not consistent) and 4 (unread) skipped", perCreate)
	}
	// The median of 1.05 and 1.2 is 1.125, over 1.10.
	if perCreate.met() {
		t.Errorf("a median of 1.125 requests per create met <= 1.10")
	}
	var b bytes.Buffer
	PrintTargets(&b, []result.Result{run(1, 0.05, true)})
	if out := b.String(); !strings.Contains(out, "<= 1.10 ") || !strings.Contains(out, "1.05") || strings.Contains(out, "1.05x") {
		t.Errorf("an absolute target is printed as a ratio or without its value:\n%s", out)
	}
}

func TestTargetsOfSeveralApiserversMatchOnlySuchRuns(t *testing.T) {
	run := func(contender string, apiservers int, cps float64) result.Result {
		return result.Result{Contender: contender, N: 10000, Round: 1, Apiservers: apiservers, CreatesPerSec: cps, Consistent: true}
	}
	trs := evaluateTargets([]result.Result{run("netfork", 1, 1000), run("upstream", 1, 100)})
	for _, tr := range trs {
		if tr.num.apiservers > 1 {
			t.Errorf("runs of one apiserver evaluated the target %q of %s", tr.what, tr.num)
		}
	}
	trs = evaluateTargets([]result.Result{run("netfork", 3, 1000), run("upstream", 3, 250)})
	vs := findTarget(t, trs, "creates/s vs upstream", runRef{"netfork", 10000, 0, 3})
	if stats.Median(vs.ratios) != 4 || vs.met() {
		t.Errorf("3 apiservers at 4x upstream = %+v, want 4.00x, missed under >= 5x", vs)
	}
	if c := findTarget(t, trs, "collisions", runRef{"netfork", 10000, 0, 3}); !c.met() {
		t.Errorf("no collisions missed the collisions target: %+v", c)
	}
}

func TestPrintTargetsShowsMedianSpreadAndVerdict(t *testing.T) {
	var b bytes.Buffer
	PrintTargets(&b, deleteRuns())
	out := b.String()
	for _, want := range []string{">= 0.90x", "0.70x", "0.50-0.90", "missed (1 round(s) without a consistent pair)", "<= 1.25x", "1.00x", "met"} {
		if !strings.Contains(out, want) {
			t.Errorf("targets table lacks %q:\n%s", want, out)
		}
	}
	// No target bounds a run at 1000 Services.
	b.Reset()
	PrintTargets(&b, testResults()[:2])
	if b.Len() != 0 {
		t.Errorf("runs with no target's pair printed a targets table:\n%s", b.String())
	}
}

func TestTargetsOfOneApiserverLeaveRunsOfSeveralAlone(t *testing.T) {
	run := func(contender string, apiservers int, cps float64) result.Result {
		return result.Result{Contender: contender, N: 10000, Round: 1, Apiservers: apiservers, CreatesPerSec: cps, Consistent: true}
	}
	// A --full run and an --apiservers 3 run read together by --report.
	trs := evaluateTargets([]result.Result{run("netfork", 1, 900), run("floor-headless", 1, 1000), run("netfork", 3, 2000), run("upstream", 3, 100)})
	vsFloor := findTarget(t, trs, "creates/s vs floor", ref("netfork", 10000, 0))
	if len(vsFloor.ratios) != 1 || vsFloor.ratios[0] != 0.9 {
		t.Errorf("creates/s vs floor = %+v, want only the one-apiserver pair's 0.90x", vsFloor)
	}
	vsUpstream := findTarget(t, trs, "creates/s vs upstream", runRef{"netfork", 10000, 0, 3})
	if len(vsUpstream.ratios) != 1 || vsUpstream.ratios[0] != 20 {
		t.Errorf("creates/s vs upstream = %+v, want only the three-apiserver pair's 20x", vsUpstream)
	}
}

func TestReportReadsResultsTogether(t *testing.T) {
	dir := t.TempDir()
	full, three := filepath.Join(dir, "full.json"), filepath.Join(dir, "three.json")
	floor := result.Result{Contender: "floor-headless", N: 10000, Round: 1, Apiservers: 1, CreatesPerSec: 1000, Consistent: true}
	netfork := floor
	netfork.Contender, netfork.CreatesPerSec = "netfork", 950
	if err := WriteJSON(full, []result.Result{netfork, floor}); err != nil {
		t.Fatal(err)
	}
	netfork3 := result.Result{Contender: "netfork", N: 10000, Round: 1, Apiservers: 3, CreatesPerSec: 600, Consistent: true}
	upstream3 := result.Result{Contender: "upstream", N: 10000, Round: 1, Apiservers: 3, CreatesPerSec: 100, Consistent: false}
	if err := WriteJSON(three, []result.Result{netfork3, upstream3}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	failed, err := Report([]string{full, three}, &b)
	if err != nil {
		t.Fatal(err)
	}
	if failed != 1 {
		t.Errorf("report counted %d failed runs, want upstream's one", failed)
	}
	out := b.String()
	for _, want := range []string{"4 runs from", "creates/s vs floor", "0.95x", "collisions", "load average"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Report([]string{full, bad}, &b); err == nil || !strings.Contains(err.Error(), "bad.json is not a results.json") {
		t.Errorf("report of a file that is not results.json = %v, want an error naming it", err)
	}
	if _, err := Report([]string{filepath.Join(dir, "missing.json")}, &b); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("report of a missing file = %v, want an error naming it", err)
	}
}

func TestCreateOnlyRunsMeasureNoDeleteTarget(t *testing.T) {
	runs := deleteRuns()[:4] // Rounds 1 and 2, all consistent.
	runs[2].CreateOnly = true
	runs[2].EtcdPerDelete = map[string]float64{} // Nothing deleted, no request.
	for i := range runs {
		runs[i].Create.P99 = 50
	}
	trs := evaluateTargets(runs)
	dps := findTarget(t, trs, "deletes/s vs floor", ref("netfork", 10000, 0))
	if len(dps.ratios) != 1 || dps.ratios[0] != 0.5 || dps.skipped != 1 {
		t.Errorf("deletes/s target = %+v, want round 1's 0.5 and round 2's create-only run skipped", dps)
	}
	perDelete := findTarget(t, trs, "etcd requests per delete", ref("netfork", 10000, 0))
	for _, v := range perDelete.ratios {
		if v == 0 {
			t.Errorf("etcd requests per delete read 0 from the create-only run: %+v", perDelete)
		}
	}
	if p99 := findTarget(t, trs, "create p99 vs floor", ref("netfork", 10000, 0)); len(p99.ratios) != 2 {
		t.Errorf("create p99 target = %+v, want both rounds: a create-only run measures its creates", p99)
	}
}

func TestReportPairsRunsOfOneBenchmarkOnly(t *testing.T) {
	heap := func(contender string, kb float64, source int) result.Result {
		return result.Result{Contender: contender, N: 30000, Round: 1, HeapPerServiceKB: kb, Consistent: true, Source: source}
	}
	// A --full run (source 0) without upstream at 30k, and a run of its own (source 1)
	// with netfork and upstream: only the latter's pair counts, and the former's netfork
	// is not a round without a pair.
	trs := evaluateTargets([]result.Result{heap("netfork", 20, 0), heap("netfork", 9, 1), heap("upstream", 10, 1)})
	live := findTarget(t, trs, "live heap per Service vs upstream", ref("netfork", 30000, 0))
	if len(live.ratios) != 1 || live.ratios[0] != 0.9 || live.skipped != 0 {
		t.Errorf("live heap target = %+v, want 0.9 from the second benchmark alone, nothing skipped", live)
	}
}

func TestTargetsLeaveOutRoundsWithoutTheOtherRun(t *testing.T) {
	rate := func(cidrs, round int, cps float64, consistent bool) result.Result {
		return result.Result{Contender: "netfork", N: 100000, CIDRs: cidrs, Round: round, CreatesPerSec: cps, Consistent: consistent}
	}
	// --full runs k=1000 in round 1 only: rounds 2 and 3 of k=0 have no partner and are
	// not failures; a failed partner is.
	trs := evaluateTargets([]result.Result{rate(0, 1, 1000, true), rate(1000, 1, 800, true), rate(0, 2, 1000, true), rate(0, 3, 1000, true)})
	if k := findTarget(t, trs, "creates/s vs k=1000", ref("netfork", 100000, 0)); len(k.ratios) != 1 || k.ratios[0] != 1.25 || k.skipped != 0 {
		t.Errorf("creates/s vs k=1000 = %+v, want round 1's 1.25 and nothing skipped", k)
	}
	trs = evaluateTargets([]result.Result{rate(0, 1, 1000, true), rate(1000, 1, 800, false)})
	if k := findTarget(t, trs, "creates/s vs k=1000", ref("netfork", 100000, 0)); len(k.ratios) != 0 || k.skipped != 1 {
		t.Errorf("creates/s vs k=1000 with a failed partner = %+v, want it skipped", k)
	}
}

// parseOptions parses a benchmark's arguments as bench-services does, with this test's
// own executable standing in for both kube-apiservers.
func parseOptions(t *testing.T, args ...string) (*plan.Options, error) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o := plan.NewOptions()
	args = append([]string{"--netfork-binary=" + self, "--upstream-binary=" + self}, args...)
	return o, o.Parse(pflag.NewFlagSet("test", pflag.ContinueOnError), args)
}

func TestTargetsRunInFullOrOutsideIt(t *testing.T) {
	o, err := parseOptions(t, "--full")
	if err != nil {
		t.Fatal(err)
	}
	// Every target's runs are in the matrix, each target's sides in some cell, but for the
	// runs outsideFull names; those must be outside it, or the hour is gone.
	ran := map[runRef]bool{}
	for _, c := range o.Matrix() {
		for _, name := range c.Contenders {
			ran[ref(name, c.N, c.CIDRs)] = true
		}
	}
	for _, tg := range targets {
		for _, side := range []runRef{tg.num, tg.den} {
			_, elsewhere := outsideFull[side]
			if side.contender != "" && ran[side] == elsewhere {
				t.Errorf("target %q: --full runs %s: %t, outsideFull names it: %t", tg.what, side, ran[side], elsewhere)
			}
		}
	}
	// The arguments outsideFull gives measure what they are named for.
	for side, args := range outsideFull {
		other, err := parseOptions(t, strings.Fields(args)...)
		if err != nil {
			t.Errorf("outsideFull's arguments for %s: %v", side, err)
			continue
		}
		found := false
		for _, c := range other.Matrix() {
			found = found || (c.N == side.n && c.CIDRs == side.cidrs && other.Apiservers == side.apiservers && slices.Contains(c.Contenders, side.contender))
		}
		if !found {
			t.Errorf("outsideFull's arguments %q do not run %s", args, side)
		}
	}
}
