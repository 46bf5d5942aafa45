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

package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/netfork/netfork/test/bench/internal/result"
)

// parseForTest parses args with both binaries pointing at an executable stand-in.
func parseForTest(t *testing.T, args ...string) (*Options, error) {
	t.Helper()
	binary := filepath.Join(t.TempDir(), "kube-apiserver")
	if err := os.WriteFile(binary, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := NewOptions()
	args = append([]string{"--netfork-binary=" + binary, "--upstream-binary=" + binary}, args...)
	return o, o.Parse(pflag.NewFlagSet("test", pflag.ContinueOnError), args)
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
	ran := false
	for _, c := range o.Matrix() {
		ran = ran || (c.N == 100000 && c.CIDRs == 1000 && slices.Contains(c.Contenders, "netfork"))
	}
	if !ran {
		t.Errorf("--full lacks netfork at 100k with 1000 ServiceCIDRs: %s", DescribeMatrix(o.Matrix()))
	}
	if want := "n=100000 k=0 (netfork, floor-headless) (no delete phase: floor-headless)"; !strings.Contains(DescribeMatrix(o.Matrix()), want) {
		t.Errorf("--full's matrix %q does not say %q", DescribeMatrix(o.Matrix()), want)
	}
	if want := []string{"netfork", "netfork-dualwrite", "netfork-bitmap", "upstream", "netfork-upstream-pace", "floor-headless"}; !slices.Equal(o.ContenderOrder(), want) {
		t.Errorf("--full's contenders %v, want %v", o.ContenderOrder(), want)
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
	got := DescribeMatrix(o.Matrix())
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
	o := NewOptions()
	err := o.Parse(pflag.NewFlagSet("test", pflag.ContinueOnError), []string{"--upstream-binary=/nonexistent/kube-apiserver", "--contenders=upstream"})
	if err == nil || !strings.Contains(err.Error(), "--upstream-binary") {
		t.Errorf("parse = %v, want an error naming --upstream-binary", err)
	}
}

func TestPlanRunsAPacedContenderAfterItsPacer(t *testing.T) {
	o, err := parseForTest(t, "--n=1000", "--contenders=netfork-upstream-pace,netfork,upstream", "--rounds=3")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range Plan(o) {
		got = append(got, fmt.Sprintf("%d:%s", s.Round, s.Contender.Name))
	}
	// The others rotate each round; the paced one always runs after them.
	want := []string{"1:netfork", "1:upstream", "1:netfork-upstream-pace", "2:upstream", "2:netfork", "2:netfork-upstream-pace", "3:netfork", "3:upstream", "3:netfork-upstream-pace"}
	if !slices.Equal(got, want) {
		t.Errorf("plan %v, want %v", got, want)
	}
}

func TestSetPaceTakesThePacersRatesOfTheSameRound(t *testing.T) {
	c, _ := LookupContender("netfork-upstream-pace")
	results := []result.Result{
		{Contender: "upstream", N: 10000, Round: 1, CreatesPerSec: 150, DeletesPerSec: 240, Consistent: true},
		{Contender: "upstream", N: 10000, Round: 2, CreatesPerSec: 140, DeletesPerSec: 230, Consistent: false},
		{Contender: "netfork", N: 10000, Round: 2, CreatesPerSec: 1200, DeletesPerSec: 1500, Consistent: true},
	}
	s := Spec{Contender: c, N: 10000, Round: 1}
	if err := s.SetPace(results); err != nil || s.CreatePace != 150 || s.DeletePace != 240 {
		t.Errorf("SetPace in round 1 = %v, paces %.0f and %.0f; want 150 and 240", err, s.CreatePace, s.DeletePace)
	}
	s = Spec{Contender: c, N: 10000, Round: 2}
	if err := s.SetPace(results); err == nil || !strings.Contains(err.Error(), "takes its pace from upstream, which has no consistent run at n=10000 k=0 in round 2") {
		t.Errorf("SetPace without a consistent pacer = %v", err)
	}
	free, _ := LookupContender("netfork")
	s = Spec{Contender: free, N: 10000, Round: 1, CreatePace: 7}
	if err := s.SetPace(results); err != nil || s.CreatePace != 7 {
		t.Errorf("SetPace changed an unpaced contender's --rate: %v, %.0f", err, s.CreatePace)
	}
}

func TestOptionsReportRunsNothing(t *testing.T) {
	o := NewOptions()
	fs := pflag.NewFlagSet("bench-services", pflag.ContinueOnError)
	if err := o.Parse(fs, []string{"--report=a.json,b.json"}); err != nil || !slices.Equal(o.Report, []string{"a.json", "b.json"}) {
		t.Fatalf("--report=a.json,b.json: %v, report %v", err, o.Report)
	}
	// hack/bench-services.sh passes the binaries to every invocation, --report too.
	o = NewOptions()
	fs = pflag.NewFlagSet("bench-services", pflag.ContinueOnError)
	if err := o.Parse(fs, []string{"--netfork-binary=/x", "--upstream-binary=/y", "--chart-binary=/z", "--report=a.json"}); err != nil {
		t.Errorf("--report through hack/bench-services.sh: %v", err)
	}
	o = NewOptions()
	fs = pflag.NewFlagSet("bench-services", pflag.ContinueOnError)
	err := o.Parse(fs, []string{"--report=a.json", "--full"})
	if err == nil || !strings.Contains(err.Error(), "--report runs nothing; drop --full") {
		t.Errorf("--report with --full: %v, want the flag named", err)
	}
}

func TestPlanRunsEachCellsOwnContenders(t *testing.T) {
	o := NewOptions()
	o.Full, o.Rounds = true, 2
	counts, createOnly := map[string]int{}, map[string]bool{}
	for _, s := range Plan(o) {
		run := fmt.Sprintf("%s n=%d k=%d", s.Contender.Name, s.N, s.CIDRs)
		counts[run]++
		createOnly[run] = s.CreateOnly
	}
	for run, want := range map[string]int{
		"netfork n=100000 k=1000": 1, "floor-headless n=100000 k=0": 2, "upstream n=30000 k=0": 0,
		"upstream n=100000 k=0": 0, "netfork-bitmap n=10000 k=0": 0, "netfork-dualwrite n=10000 k=0": 2,
		"netfork-bitmap n=1000 k=0": 1, "upstream n=10000 k=0": 2, "netfork n=30000 k=0": 2,
	} {
		if counts[run] != want {
			t.Errorf("--full --rounds=2 runs %s %d times, want %d", run, counts[run], want)
		}
	}
	for run, want := range map[string]bool{
		"upstream n=10000 k=0": true, "netfork-upstream-pace n=10000 k=0": true, "floor-headless n=100000 k=0": true,
		"netfork n=100000 k=0": false, "floor-headless n=10000 k=0": false, "upstream n=1000 k=0": false,
	} {
		if createOnly[run] != want {
			t.Errorf("--full runs %s create-only: %t, want %t", run, createOnly[run], want)
		}
	}
}

func TestPlanInterleavesAndRotates(t *testing.T) {
	o := NewOptions()
	o.Ns, o.CIDRs, o.Rounds, o.Contenders = []int{1000}, []int{0}, 2, []string{"netfork", "upstream", "floor-headless"}
	var got []string
	for _, s := range Plan(o) {
		got = append(got, s.Name())
	}
	want := []string{
		"netfork-n1000-k0-r1", "upstream-n1000-k0-r1", "floor-headless-n1000-k0-r1",
		"upstream-n1000-k0-r2", "floor-headless-n1000-k0-r2", "netfork-n1000-k0-r2",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("plan = %v, want %v", got, want)
	}
}
