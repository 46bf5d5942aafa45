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
	"math"
	"text/tabwriter"

	"github.com/netfork/netfork/test/bench/internal/result"
	"github.com/netfork/netfork/test/bench/internal/stats"
)

// runRef names the runs of one contender in one cell with apiservers apiservers
// (--apiservers).
type runRef struct {
	contender  string
	n, cidrs   int
	apiservers int
}

// matches says whether r is a run of the reference's contender, cell and apiservers, so
// that targets of one apiserver and of several can be read from the results of both.
func (rr runRef) matches(r result.Result) bool {
	return r.Contender == rr.contender && r.N == rr.n && r.CIDRs == rr.cidrs &&
		max(r.Apiservers, 1) == rr.apiservers
}

// String spells the reference in the targets table; "-" for an absolute target's missing
// second run.
func (rr runRef) String() string {
	if rr.contender == "" {
		return "-"
	}
	s := fmt.Sprintf("%s n=%d k=%d", rr.contender, rr.n, rr.cidrs)
	if rr.apiservers > 1 {
		s += fmt.Sprintf(" x%d apiservers", rr.apiservers)
	}
	return s
}

// target is one of the benchmark's goals: the ratio of a measure of two runs of the same
// round, or with no den the measure of num's run itself, bounded from below (atLeast) or above.
type target struct {
	what     string
	num, den runRef
	measure  func(result.Result) float64
	bound    float64
	atLeast  bool
}

// absolute says the target bounds a value, not a ratio of two runs.
func (t target) absolute() bool { return t.den.contender == "" }

func createsPerSec(r result.Result) float64  { return r.CreatesPerSec }
func createP99(r result.Result) float64      { return r.Create.P99 }
func deletesPerSec(r result.Result) float64  { return deleted(r, r.DeletesPerSec) }
func deleteP99(r result.Result) float64      { return deleted(r, r.Delete.P99) }
func peakRSS(r result.Result) float64        { return r.PeakRSSMB }
func heapPerService(r result.Result) float64 { return r.HeapPerServiceKB }
func etcdPerCreate(r result.Result) float64  { return measured(r.EtcdPerCreate) }
func etcdPerDelete(r result.Result) float64  { return deleted(r, measured(r.EtcdPerDelete)) }
func allocPerCreate(r result.Result) float64 { return r.AllocPerCreateKB }
func allocPerDelete(r result.Result) float64 { return deleted(r, r.AllocPerDeleteKB) }

// deleted is v, a measure of the delete phase, or NaN when the run had none, so that a
// create-only run never passes for one that deleted nothing in no time.
func deleted(r result.Result, v float64) float64 {
	if r.CreateOnly {
		return math.NaN()
	}
	return v
}

// measured sums a run's per-Service etcd requests, or is NaN when the run could not read
// the counters, so that a missing reading never passes for zero requests.
func measured(perService map[string]float64) float64 {
	if perService == nil {
		return math.NaN()
	}
	return stats.Sum(perService)
}
func collisions(r result.Result) float64 { return float64(r.Collisions) }

// targets are the goals of the Service benchmark (netfork issues 12 and 19): a ClusterIP
// Service costs what a headless one (the floor) costs in etcd requests, time and memory, and
// no more memory than upstream's at the same pace; dual-write costs little; 100k Services
// and 1000 extra ServiceCIDRs cost no more per Service than 10k and none; and with three
// apiservers on one etcd netfork outruns upstream without a collision.
var targets = []target{
	{"etcd requests per create", ref("netfork", 10000, 0), runRef{}, etcdPerCreate, 1.10, false},
	{"etcd requests per create", ref("netfork", 100000, 0), runRef{}, etcdPerCreate, 1.10, false},
	{"etcd requests per delete", ref("netfork", 10000, 0), runRef{}, etcdPerDelete, 2.10, false},
	{"etcd requests per delete", ref("netfork", 100000, 0), runRef{}, etcdPerDelete, 2.10, false},
	{"creates/s vs floor", ref("netfork", 10000, 0), ref("floor-headless", 10000, 0), createsPerSec, 0.9, true},
	{"creates/s vs floor", ref("netfork", 30000, 0), ref("floor-headless", 30000, 0), createsPerSec, 0.9, true},
	{"creates/s vs floor", ref("netfork", 100000, 0), ref("floor-headless", 100000, 0), createsPerSec, 0.9, true},
	{"deletes/s vs floor", ref("netfork", 10000, 0), ref("floor-headless", 10000, 0), deletesPerSec, 0.9, true},
	{"deletes/s vs floor", ref("netfork", 30000, 0), ref("floor-headless", 30000, 0), deletesPerSec, 0.9, true},
	{"create p99 vs floor", ref("netfork", 10000, 0), ref("floor-headless", 10000, 0), createP99, 1.25, false},
	{"create p99 vs floor", ref("netfork", 30000, 0), ref("floor-headless", 30000, 0), createP99, 1.25, false},
	{"create p99 vs floor", ref("netfork", 100000, 0), ref("floor-headless", 100000, 0), createP99, 1.25, false},
	{"delete p99 vs floor", ref("netfork", 10000, 0), ref("floor-headless", 10000, 0), deleteP99, 1.25, false},
	{"delete p99 vs floor", ref("netfork", 30000, 0), ref("floor-headless", 30000, 0), deleteP99, 1.25, false},
	{"creates/s vs netfork", ref("netfork-dualwrite", 10000, 0), ref("netfork", 10000, 0), createsPerSec, 0.9, true},
	{"allocated per create vs floor", ref("netfork", 10000, 0), ref("floor-headless", 10000, 0), allocPerCreate, 1.3, false},
	{"allocated per delete vs floor", ref("netfork", 10000, 0), ref("floor-headless", 10000, 0), allocPerDelete, 1.3, false},
	{"live heap per Service vs upstream", ref("netfork", 30000, 0), ref("upstream", 30000, 0), heapPerService, 1.0, false},
	{"peak RSS at upstream's pace", ref("netfork-upstream-pace", 10000, 0), ref("upstream", 10000, 0), peakRSS, 1.0, false},
	{"peak RSS vs floor", ref("netfork", 30000, 0), ref("floor-headless", 30000, 0), peakRSS, 1.3, false},
	{"create p99 vs 10k", ref("netfork", 100000, 0), ref("netfork", 10000, 0), createP99, 1.3, false},
	{"creates/s vs k=1000", ref("netfork", 100000, 0), ref("netfork", 100000, 1000), createsPerSec, 1.3, false},
	{"create p99 vs k=0", ref("netfork", 100000, 1000), ref("netfork", 100000, 0), createP99, 1.3, false},
	{"creates/s vs upstream", runRef{"netfork", 10000, 0, 3}, runRef{"upstream", 10000, 0, 3}, createsPerSec, 5, true},
	{"collisions", runRef{"netfork", 10000, 0, 3}, runRef{}, collisions, 0, false},
}

// outsideFull are the runs of targets that --full leaves out, each with the arguments
// that measure it; --report puts their results.json in one table with --full's.
var outsideFull = map[runRef]string{
	ref("upstream", 30000, 0): upstream30kArgs,
	{"netfork", 10000, 0, 3}:  threeApiserversArgs,
	{"upstream", 10000, 0, 3}: threeApiserversArgs,
}

const (
	// upstream30kArgs measure upstream's live heap at 30k next to netfork's; upstream's
	// create phase there runs past the default phase timeout on 2 cores (1355 s measured,
	// 22 creates/s).
	upstream30kArgs = "--n=30000 --contenders=netfork,upstream --create-only=upstream --phase-timeout=40m"
	// threeApiserversArgs measure three apiservers on one etcd.
	threeApiserversArgs = "--apiservers=3 --n=10000 --contenders=netfork,upstream"
)

// ref names a contender's runs in a cell with one apiserver.
func ref(contender string, n, cidrs int) runRef {
	return runRef{contender: contender, n: n, cidrs: cidrs, apiservers: 1}
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
	m := stats.Median(t.ratios)
	if t.atLeast {
		return m >= t.bound
	}
	return m <= t.bound
}

// evaluateTargets pairs each target's runs round by round within one benchmark (one
// results.json of a --report); a target one of whose sides never ran is left out, so a
// short run reports only what it measured, and so is a run whose benchmark did not run
// the other side in its round. A pair with a failed run counts as skipped.
func evaluateTargets(results []result.Result) []targetResult {
	const anySource, anyRound = -1, 0
	find := func(ref runRef, source, round int) (result.Result, bool) {
		for _, r := range results {
			if ref.matches(r) && (source == anySource || r.Source == source) && (round == anyRound || r.Round == round) {
				return r, true
			}
		}
		return result.Result{}, false
	}
	var out []targetResult
	for _, t := range targets {
		if _, ok := find(t.den, anySource, anyRound); !ok && !t.absolute() {
			continue
		}
		tr := targetResult{target: t}
		seen := false
		for _, r := range results {
			if !t.num.matches(r) {
				continue
			}
			seen = true
			if t.absolute() {
				if !r.Consistent || math.IsNaN(t.measure(r)) {
					tr.skipped++
					continue
				}
				tr.ratios = append(tr.ratios, t.measure(r))
				continue
			}
			d, ok := find(t.den, r.Source, r.Round)
			if !ok {
				continue // Not run in this round of this benchmark (e.g. a first-round cell of --full).
			}
			if !r.Consistent || !d.Consistent || t.measure(d) == 0 || math.IsNaN(t.measure(r)) || math.IsNaN(t.measure(d)) {
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

// PrintTargets prints each target's ratio: median over rounds, its spread, and whether the
// median is within the bound.
func PrintTargets(w io.Writer, results []result.Result) {
	trs := evaluateTargets(results)
	if len(trs) == 0 {
		return
	}
	fmt.Fprintln(w, "\ntargets (ratio of the two runs of each round, or the value where there is no second run; median, min-max over rounds):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\trun\tto\ttarget\tmedian\tmin-max\trounds\tverdict")
	for _, t := range trs {
		op := "<="
		if t.atLeast {
			op = ">="
		}
		unit := "x"
		if t.absolute() {
			unit = ""
		}
		missing := "pair"
		if t.absolute() {
			missing = "run"
		}
		mid, span, verdict := "-", "-", "no consistent "+missing
		if len(t.ratios) > 0 {
			s := stats.SpreadOf(t.ratios)
			mid, span = fmt.Sprintf("%.2f%s", stats.Median(t.ratios), unit), fmt.Sprintf("%.2f-%.2f", s.Min, s.Max)
			verdict = "missed"
			if t.met() {
				verdict = "met"
			}
		}
		if t.skipped > 0 {
			verdict += fmt.Sprintf(" (%d round(s) without a consistent %s)", t.skipped, missing)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s %.2f%s\t%s\t%s\t%d\t%s\n", t.what, t.num, t.den, op, t.bound, unit, mid, span, len(t.ratios), verdict)
	}
	_ = tw.Flush() // Writes to stdout; nothing to do if that fails.
}
