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
	"fmt"
	"io"
	"text/tabwriter"
)

// runRef names the runs of one contender in one cell.
type runRef struct {
	contender string
	n, cidrs  int
}

// matches says whether r is a run of the reference's contender and cell.
func (rr runRef) matches(r result) bool {
	return r.Contender == rr.contender && r.N == rr.n && r.CIDRs == rr.cidrs
}

// String spells the reference in the targets table.
func (rr runRef) String() string {
	return fmt.Sprintf("%s n=%d k=%d", rr.contender, rr.n, rr.cidrs)
}

// target is one of the benchmark's goals: the ratio of a measure of two runs of the same
// round, bounded from below (atLeast) or above.
type target struct {
	what     string
	num, den runRef
	measure  func(result) float64
	bound    float64
	atLeast  bool
}

func createsPerSec(r result) float64 { return r.CreatesPerSec }
func createP99(r result) float64     { return r.Create.P99 }
func deletesPerSec(r result) float64 { return r.DeletesPerSec }
func deleteP99(r result) float64     { return r.Delete.P99 }
func peakRSS(r result) float64       { return r.PeakRSSMB }

// targets are the goals of the Service benchmark (netfork issue 12), checked wherever a
// run holds both sides: netfork deletes as fast as the floor at 10k and 30k, its memory
// near the floor's at 30k, dual-write creates near netfork's, and 100k Services as fast
// as the floor, as quick as 10k and as quick with 1000 extra ServiceCIDRs as without.
var targets = []target{
	{"deletes/s vs floor", runRef{"netfork", 10000, 0}, runRef{"floor-headless", 10000, 0}, deletesPerSec, 0.8, true},
	{"deletes/s vs floor", runRef{"netfork", 30000, 0}, runRef{"floor-headless", 30000, 0}, deletesPerSec, 0.8, true},
	{"delete p99 vs floor", runRef{"netfork", 10000, 0}, runRef{"floor-headless", 10000, 0}, deleteP99, 1.5, false},
	{"delete p99 vs floor", runRef{"netfork", 30000, 0}, runRef{"floor-headless", 30000, 0}, deleteP99, 1.5, false},
	{"peak RSS vs floor", runRef{"netfork", 30000, 0}, runRef{"floor-headless", 30000, 0}, peakRSS, 1.15, false},
	{"creates/s vs netfork", runRef{"netfork-dualwrite", 10000, 0}, runRef{"netfork", 10000, 0}, createsPerSec, 0.8, true},
	{"creates/s vs floor", runRef{"netfork", 100000, 0}, runRef{"floor-headless", 100000, 0}, createsPerSec, 0.8, true},
	{"create p99 vs 10k", runRef{"netfork", 100000, 0}, runRef{"netfork", 10000, 0}, createP99, 1.3, false},
	{"creates/s vs k=1000", runRef{"netfork", 100000, 0}, runRef{"netfork", 100000, 1000}, createsPerSec, 1.3, false},
	{"create p99 vs k=0", runRef{"netfork", 100000, 1000}, runRef{"netfork", 100000, 0}, createP99, 1.3, false},
}

// targetResult is a target's ratio in each round that had both runs consistent.
type targetResult struct {
	target
	ratios []float64
	// skipped counts rounds where either run was missing its partner or not consistent.
	skipped int
}

// met says whether the median ratio is within the bound.
func (t targetResult) met() bool {
	m := median(t.ratios)
	if t.atLeast {
		return m >= t.bound
	}
	return m <= t.bound
}

// evaluateTargets pairs each target's runs round by round; a target one of whose sides
// never ran is left out, so a short run reports only what it measured.
func evaluateTargets(results []result) []targetResult {
	find := func(ref runRef, round int) (result, bool) {
		for _, r := range results {
			if ref.matches(r) && (round == 0 || r.Round == round) {
				return r, true
			}
		}
		return result{}, false
	}
	var out []targetResult
	for _, t := range targets {
		if _, ok := find(t.den, 0); !ok {
			continue
		}
		tr := targetResult{target: t}
		seen := false
		for _, r := range results {
			if !t.num.matches(r) {
				continue
			}
			seen = true
			d, ok := find(t.den, r.Round)
			if !ok || !r.Consistent || !d.Consistent || t.measure(d) == 0 {
				tr.skipped++
				continue
			}
			tr.ratios = append(tr.ratios, t.measure(r)/t.measure(d))
		}
		if seen {
			out = append(out, tr)
		}
	}
	return out
}

// printTargets prints each target's ratio: median over rounds, its spread, and whether the
// median is within the bound.
func printTargets(w io.Writer, results []result) {
	trs := evaluateTargets(results)
	if len(trs) == 0 {
		return
	}
	fmt.Fprintln(w, "\ntargets (ratio of the two runs of each round; median, min-max over rounds):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\trun\tto\ttarget\tmedian\tmin-max\trounds\tverdict")
	for _, t := range trs {
		op := "<="
		if t.atLeast {
			op = ">="
		}
		mid, span, verdict := "-", "-", "no consistent pair"
		if len(t.ratios) > 0 {
			s := spreadOf(t.ratios)
			mid, span = fmt.Sprintf("%.2fx", median(t.ratios)), fmt.Sprintf("%.2f-%.2f", s.Min, s.Max)
			verdict = "missed"
			if t.met() {
				verdict = "met"
			}
		}
		if t.skipped > 0 {
			verdict += fmt.Sprintf(" (%d round(s) without a consistent pair)", t.skipped)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s %.2fx\t%s\t%s\t%d\t%s\n", t.what, t.num, t.den, op, t.bound, mid, span, len(t.ratios), verdict)
	}
	_ = tw.Flush() // Writes to stdout; nothing to do if that fails.
}
