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
	"bytes"
	"strings"
	"testing"
)

// deleteRuns are netfork and the floor at 10k over three rounds: netfork's deletes/s are
// 0.5x, 0.9x and 0.7x the floor's, and round 3's floor run is not consistent.
func deleteRuns() []result {
	run := func(contender string, round int, dps float64, consistent bool) result {
		return result{Contender: contender, N: 10000, Round: round, DeletesPerSec: dps, Delete: latencyMS{P99: 100}, Consistent: consistent}
	}
	return []result{
		run("netfork", 1, 500, true), run("floor-headless", 1, 1000, true),
		run("netfork", 2, 900, true), run("floor-headless", 2, 1000, true),
		run("netfork", 3, 700, true), run("floor-headless", 3, 1000, false),
	}
}

func TestTargetsPairRunsOfTheSameRound(t *testing.T) {
	trs := evaluateTargets(deleteRuns())
	// Only the 10k delete targets have both sides here; the 30k, 100k and dual-write ones are left out.
	if len(trs) != 2 {
		t.Fatalf("evaluated %d targets, want the two at 10k: %+v", len(trs), trs)
	}
	dps := trs[0]
	if dps.what != "deletes/s vs floor" || len(dps.ratios) != 2 || dps.ratios[0] != 0.5 || dps.ratios[1] != 0.9 || dps.skipped != 1 {
		t.Errorf("deletes/s target = %+v, want ratios 0.5 and 0.9 and round 3 skipped", dps)
	}
	// The median of 0.5 and 0.9 is 0.7, under 0.8.
	if dps.met() {
		t.Errorf("a median of 0.70x met a bound of >= 0.8x")
	}
	if p99 := trs[1]; !p99.met() || median(p99.ratios) != 1 {
		t.Errorf("delete p99 target = %+v, want 1.00x, met under 1.5x", p99)
	}
}

func TestPrintTargetsShowsMedianSpreadAndVerdict(t *testing.T) {
	var b bytes.Buffer
	printTargets(&b, deleteRuns())
	out := b.String()
	for _, want := range []string{">= 0.80x", "0.70x", "0.50-0.90", "missed (1 round(s) without a consistent pair)", "<= 1.50x", "1.00x", "met"} {
		if !strings.Contains(out, want) {
			t.Errorf("targets table lacks %q:\n%s", want, out)
		}
	}
	// netfork at 10k is one side of three targets, but no run holds the other side of any.
	b.Reset()
	printTargets(&b, testResults())
	if b.Len() != 0 {
		t.Errorf("runs with no target's pair printed a targets table:\n%s", b.String())
	}
}
