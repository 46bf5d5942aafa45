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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// parseForTest parses args with both binaries pointing at an executable stand-in.
func parseForTest(t *testing.T, args ...string) (*options, error) {
	t.Helper()
	binary := filepath.Join(t.TempDir(), "kube-apiserver")
	if err := os.WriteFile(binary, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := newOptions()
	args = append([]string{"--netfork-binary=" + binary, "--upstream-binary=" + binary}, args...)
	return o, o.parse(pflag.NewFlagSet("test", pflag.ContinueOnError), args)
}

func TestOptionsDefaultsAreTheShortRun(t *testing.T) {
	o, err := parseForTest(t)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Ns, []int{1000, 10000}) || !slices.Equal(o.CIDRs, []int{0}) || o.Rounds != 1 || o.Workers != 100 {
		t.Errorf("defaults n=%v cidrs=%v rounds=%d workers=%d, want the short run", o.Ns, o.CIDRs, o.Rounds, o.Workers)
	}
	if !slices.Equal(o.Contenders, []string{"netfork", "netfork-dualwrite", "netfork-bitmap", "upstream", "netfork-upstream-pace", "floor-headless"}) {
		t.Errorf("default contenders %v", o.Contenders)
	}
}

func TestOptionsFull(t *testing.T) {
	o, err := parseForTest(t, "--full")
	if err != nil {
		t.Fatal(err)
	}
	if o.Rounds != 3 {
		t.Errorf("--full runs %d rounds, want 3", o.Rounds)
	}
	if o.PhaseTimeout != 15*time.Minute {
		t.Errorf("--full bounds a phase at %s, want the default 15m", o.PhaseTimeout)
	}
	// Every target's runs are in the matrix, each target's sides in some cell, but for the
	// runs outsideFull names; those must be outside it, or the hour is gone.
	ran := map[runRef]bool{}
	for _, c := range o.matrix() {
		for _, name := range c.contenders {
			ran[ref(name, c.n, c.cidrs)] = true
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
	if !ran[ref("netfork", 100000, 1000)] {
		t.Errorf("--full lacks netfork at 100k with 1000 ServiceCIDRs: %s", describeMatrix(o.matrix()))
	}
	if want := "n=100000 k=0 (netfork, floor-headless) (no delete phase: floor-headless)"; !strings.Contains(describeMatrix(o.matrix()), want) {
		t.Errorf("--full's matrix %q does not say %q", describeMatrix(o.matrix()), want)
	}
	// The arguments outsideFull gives measure what they are named for.
	for side, args := range outsideFull {
		other, err := parseForTest(t, strings.Fields(args)...)
		if err != nil {
			t.Errorf("outsideFull's arguments for %s: %v", side, err)
			continue
		}
		found := false
		for _, c := range other.matrix() {
			found = found || (c.n == side.n && c.cidrs == side.cidrs && other.Apiservers == side.apiservers && slices.Contains(c.contenders, side.contender))
		}
		if !found {
			t.Errorf("outsideFull's arguments %q do not run %s", args, side)
		}
	}
	if want := []string{"netfork", "netfork-dualwrite", "netfork-bitmap", "upstream", "netfork-upstream-pace", "floor-headless"}; !slices.Equal(o.contenderOrder(), want) {
		t.Errorf("--full's contenders %v, want %v", o.contenderOrder(), want)
	}

	o, err = parseForTest(t, "--full", "--rounds=5")
	if err != nil || o.Rounds != 5 {
		t.Errorf("--full --rounds=5 = %d rounds, %v; want 5", o.Rounds, err)
	}
}

func TestOptionsMatrixIsEveryContenderInEveryCell(t *testing.T) {
	o, err := parseForTest(t, "--n=1000,2000", "--cidrs=0,10", "--contenders=upstream,netfork")
	if err != nil {
		t.Fatal(err)
	}
	got := describeMatrix(o.matrix())
	want := "n=1000 k=0 (upstream, netfork); n=1000 k=10 (upstream, netfork); n=2000 k=0 (upstream, netfork); n=2000 k=10 (upstream, netfork)"
	if got != want {
		t.Errorf("matrix %s, want %s", got, want)
	}
}

func TestOptionsErrorsNameTheFlag(t *testing.T) {
	tests := map[string][]string{
		"--n":                       {"--n=0"},
		"outside 1-100000":          {"--n=100001"},
		"--full runs its own":       {"--full", "--n=1000"},
		"--contenders: --full":      {"--full", "--contenders=netfork"},
		"--create-only: --full":     {"--full", "--create-only=upstream"},
		"not one of the contenders": {"--contenders=netfork", "--create-only=upstream"},
		"would not delete":          {"--contenders=upstream,netfork-upstream-pace", "--create-only=upstream"},
		"--cidrs":                   {"--cidrs=5000"},
		"--workers":                 {"--workers=0"},
		"--rate":                    {"--rate=-1"},
		"takes its pace from":       {"--contenders=netfork,netfork-upstream-pace"},
		"--rounds":                  {"--rounds=0"},
		"--apiservers":              {"--apiservers=6"},
		"as many --workers":         {"--apiservers=3", "--workers=2"},
		"--contenders":              {"--contenders=netfork,nope"},
		"listed twice":              {"--contenders=netfork,netfork"},
		"--profile-duration":        {"--profile", "--profile-duration=2m"},
		"--profile-phase":           {"--profile", "--profile-phase=list"},
		"unexpected argument":       {"extra"},
	}
	for want, args := range tests {
		t.Run(want, func(t *testing.T) {
			_, err := parseForTest(t, args...)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("parse(%q) = %v, want an error naming %s", args, err, want)
			}
		})
	}
}

func TestOptionsRejectAMissingBinary(t *testing.T) {
	o := newOptions()
	err := o.parse(pflag.NewFlagSet("test", pflag.ContinueOnError), []string{"--upstream-binary=/nonexistent/kube-apiserver", "--contenders=upstream"})
	if err == nil || !strings.Contains(err.Error(), "--upstream-binary") {
		t.Errorf("parse = %v, want an error naming --upstream-binary", err)
	}
}

func TestExtraCIDRsAreDisjointFromTheDefault(t *testing.T) {
	for _, i := range []int{0, 1, 999, maxExtraCIDRs - 1} {
		got := extraCIDR(i)
		if got.Bits() != extraCIDRBits || strings.HasPrefix(got.String(), "10.96.") {
			t.Errorf("extraCIDR(%d) = %s", i, got)
		}
	}
	if got := extraCIDR(257).String(); got != "10.129.1.0/24" {
		t.Errorf("extraCIDR(257) = %s, want 10.129.1.0/24", got)
	}
	if got := extraCIDR(maxExtraCIDRs - 1).String(); got != "10.143.255.0/24" {
		t.Errorf("the last extra CIDR is %s, want 10.143.255.0/24, the end of 10.128.0.0/12", got)
	}
}

func TestPlanRunsAPacedContenderAfterItsPacer(t *testing.T) {
	o, err := parseForTest(t, "--n=1000", "--contenders=netfork-upstream-pace,netfork,upstream", "--rounds=3")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range plan(o) {
		got = append(got, fmt.Sprintf("%d:%s", s.round, s.contender.name))
	}
	// The others rotate each round; the paced one always runs after them.
	want := []string{"1:netfork", "1:upstream", "1:netfork-upstream-pace", "2:upstream", "2:netfork", "2:netfork-upstream-pace", "3:netfork", "3:upstream", "3:netfork-upstream-pace"}
	if !slices.Equal(got, want) {
		t.Errorf("plan %v, want %v", got, want)
	}
}

func TestSetPaceTakesThePacersRatesOfTheSameRound(t *testing.T) {
	c, _ := lookupContender("netfork-upstream-pace")
	results := []result{
		{Contender: "upstream", N: 10000, Round: 1, CreatesPerSec: 150, DeletesPerSec: 240, Consistent: true},
		{Contender: "upstream", N: 10000, Round: 2, CreatesPerSec: 140, DeletesPerSec: 230, Consistent: false},
		{Contender: "netfork", N: 10000, Round: 2, CreatesPerSec: 1200, DeletesPerSec: 1500, Consistent: true},
	}
	s := runSpec{contender: c, n: 10000, round: 1}
	if err := s.setPace(results); err != nil || s.createPace != 150 || s.deletePace != 240 {
		t.Errorf("setPace in round 1 = %v, paces %.0f and %.0f; want 150 and 240", err, s.createPace, s.deletePace)
	}
	s = runSpec{contender: c, n: 10000, round: 2}
	if err := s.setPace(results); err == nil || !strings.Contains(err.Error(), "takes its pace from upstream, which has no consistent run at n=10000 k=0 in round 2") {
		t.Errorf("setPace without a consistent pacer = %v", err)
	}
	free, _ := lookupContender("netfork")
	s = runSpec{contender: free, n: 10000, round: 1, createPace: 7}
	if err := s.setPace(results); err != nil || s.createPace != 7 {
		t.Errorf("setPace changed an unpaced contender's --rate: %v, %.0f", err, s.createPace)
	}
}

func TestOptionsReportRunsNothing(t *testing.T) {
	o := newOptions()
	fs := pflag.NewFlagSet("bench-services", pflag.ContinueOnError)
	if err := o.parse(fs, []string{"--report=a.json,b.json"}); err != nil || !slices.Equal(o.Report, []string{"a.json", "b.json"}) {
		t.Fatalf("--report=a.json,b.json: %v, report %v", err, o.Report)
	}
	// hack/bench-services.sh passes the binaries to every invocation, --report too.
	o = newOptions()
	fs = pflag.NewFlagSet("bench-services", pflag.ContinueOnError)
	if err := o.parse(fs, []string{"--netfork-binary=/x", "--upstream-binary=/y", "--chart-binary=/z", "--report=a.json"}); err != nil {
		t.Errorf("--report through hack/bench-services.sh: %v", err)
	}
	o = newOptions()
	fs = pflag.NewFlagSet("bench-services", pflag.ContinueOnError)
	err := o.parse(fs, []string{"--report=a.json", "--full"})
	if err == nil || !strings.Contains(err.Error(), "--report runs nothing; drop --full") {
		t.Errorf("--report with --full: %v, want the flag named", err)
	}
}
