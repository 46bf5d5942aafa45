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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

const suite = "Kubernetes e2e suite"

// spec is one It of a report: its container text, its own text and its state.
func spec(container, text string, state types.SpecState) types.SpecReport {
	return types.SpecReport{ContainerHierarchyTexts: []string{container}, LeafNodeText: text, LeafNodeType: types.NodeTypeIt, State: state}
}

// report is a suite report holding the specs and a suite setup node, which never counts.
func report(specs ...types.SpecReport) types.Report {
	setup := types.SpecReport{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: types.SpecStateFailed}
	return types.Report{SuiteDescription: suite, SpecReports: append([]types.SpecReport{setup}, specs...)}
}

// writeJUnit writes the report as ginkgo itself writes a JUnit file.
func writeJUnit(t *testing.T, name string, r types.Report) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := reporters.GenerateJUnitReport(r, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeJSON writes the reports as ginkgo's --json-report does.
func writeJSON(t *testing.T, reports ...types.Report) string {
	t.Helper()
	data, err := json.Marshal(reports)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "specs.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runTool runs the command and returns its exit code and outputs.
func runTool(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// manySpecs is a dry run of n specs with texts that need quoting in a regexp.
func manySpecs(n int) types.Report {
	var specs []types.SpecReport
	for i := range n {
		specs = append(specs, spec("[sig-api-machinery] Watchers", fmt.Sprintf("should observe (add|delete) %d [Conformance]", i), types.SpecStatePassed))
	}
	return report(specs...)
}

func TestShardsPartitionTheSpecsAndFocusExactlyTheirOwn(t *testing.T) {
	r := manySpecs(40)
	path := writeJSON(t, r)
	all := specTexts([]types.Report{r})
	if len(all) != 40 {
		t.Fatalf("%d spec texts, want 40 (the setup node is no spec)", len(all))
	}
	owner := map[string]int{}
	for i := 1; i <= 3; i++ {
		code, out, errOut := runTool("shard", "--shard", fmt.Sprintf("%d/3", i), path)
		if code != 0 {
			t.Fatalf("shard %d/3: exit %d: %s", i, code, errOut)
		}
		focus := regexp.MustCompile(strings.TrimSpace(out))
		for _, text := range all {
			if !focus.MatchString(text) {
				continue
			}
			if prev, ok := owner[text]; ok {
				t.Errorf("%q is in shards %d and %d", text, prev, i)
			}
			owner[text] = i
		}
		// A text that only contains a spec's text does not match.
		if focus.MatchString(all[0] + " and more") {
			t.Errorf("shard %d's focus matches a longer text than its spec's", i)
		}
	}
	if len(owner) != len(all) {
		t.Errorf("the shards focus %d of %d specs", len(owner), len(all))
	}
}

func TestShardsHoldOnlyTheSpecsTheDryRunSelected(t *testing.T) {
	// A dry run lists the suite's every spec: the focused ones as passed, the ones its
	// filters left out as skipped, pending ones as pending.
	r := manySpecs(5)
	r.SpecReports = append(r.SpecReports, spec("[sig-x] A", "left out", types.SpecStateSkipped),
		spec("[sig-x] B", "pending", types.SpecStatePending))
	path := writeJSON(t, r)
	var focused int
	for i := 1; i <= 2; i++ {
		code, out, errOut := runTool("shard", "--shard", fmt.Sprintf("%d/2", i), path)
		if code != 0 {
			t.Fatalf("shard %d/2: exit %d: %s", i, code, errOut)
		}
		focus := regexp.MustCompile(strings.TrimSpace(out))
		for _, s := range r.SpecReports[1:] {
			if focus.MatchString(suite + " " + s.FullText()) {
				focused++
			}
		}
		if strings.Contains(out, "left out") || strings.Contains(out, "pending") {
			t.Errorf("shard %d/2 focuses a spec the dry run did not select: %s", i, out)
		}
	}
	if focused != 5 {
		t.Errorf("the shards focus %d specs, want the 5 the dry run selected", focused)
	}
	if code, _, errOut := runTool("shard", "--shard", "1/1", writeJSON(t, report(spec("[sig-x] A", "left out", types.SpecStateSkipped)))); code != 2 || !strings.Contains(errOut, "lists no specs") {
		t.Errorf("a dry run that selected nothing: exit %d, %q; want 2 and \"lists no specs\"", code, errOut)
	}
}

func TestShardOfASpecDoesNotMoveWhenOthersAreAdded(t *testing.T) {
	s := shardSpec{index: 2, count: 4}
	small, large := specTexts([]types.Report{manySpecs(10)}), specTexts([]types.Report{manySpecs(50)})
	inSmall := map[string]bool{}
	for _, text := range small {
		inSmall[text] = s.holds(text)
	}
	for _, text := range large {
		if held, ok := inSmall[text]; ok && held != s.holds(text) {
			t.Errorf("%q changed shards when specs were added", text)
		}
	}
}

func TestShardRejectsBadInput(t *testing.T) {
	empty := writeJSON(t, report())
	for want, args := range map[string][]string{
		"want I/N":              {"shard", "--shard", "0/3", empty},
		"want I/N with":         {"shard", "--shard", "4/3", empty},
		"want one dry-run JSON": {"shard", "--shard", "1/3"},
		"lists no specs":        {"shard", "--shard", "1/3", empty},
		"not a ginkgo JSON":     {"shard", "--shard", "1/1", writeJUnit(t, "junit.xml", manySpecs(1))},
		"use fewer shards":      {"shard", "--shard", "1/500", writeJSON(t, manySpecs(2))},
		"unknown subcommand":    {"merge"},
	} {
		code, _, errOut := runTool(args...)
		if code != 2 || !strings.Contains(errOut, want) || strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
			t.Errorf("%v: exit %d, %q; want 2 and an error saying %q", args, code, errOut, want)
		}
	}
}

func TestCompareListsWhatDiffersAndHoldsTheBaseline(t *testing.T) {
	watch := "[sig-api-machinery] Watchers should observe [Conformance]"
	crd := "[sig-api-machinery] CRD should publish [Conformance]"
	dns := "[sig-network] DNS should resolve [Conformance]"
	// upstream: all pass but DNS; netfork's first shard fails CRD and the rerun passes it;
	// netfork fails watch; both fail DNS.
	upstream := writeJUnit(t, "up.xml", report(spec("[sig-api-machinery] Watchers", "should observe [Conformance]", types.SpecStatePassed),
		spec("[sig-api-machinery] CRD", "should publish [Conformance]", types.SpecStatePassed),
		spec("[sig-network] DNS", "should resolve [Conformance]", types.SpecStateFailed)))
	first := writeJUnit(t, "nf1.xml", report(spec("[sig-api-machinery] Watchers", "should observe [Conformance]", types.SpecStateFailed),
		spec("[sig-api-machinery] CRD", "should publish [Conformance]", types.SpecStateFailed),
		spec("[sig-network] DNS", "should resolve [Conformance]", types.SpecStateTimedout)))
	rerun := writeJUnit(t, "nf2.xml", report(spec("[sig-api-machinery] CRD", "should publish [Conformance]", types.SpecStatePassed)))

	code, out, errOut := runTool("compare", "--baseline", "upstream", "upstream="+upstream, "netfork="+first+","+rerun)
	if code != 1 {
		t.Fatalf("exit %d (%s), want 1: watch passed under upstream and failed under netfork\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"upstream  3      2       1       0",
		"netfork   3      1       2       0",
		"specs whose outcome differs (1):\n- " + watch + "\n    upstream passed\n    netfork failed",
		"specs that failed under every label (1):\n- " + dns,
		"specs that passed under upstream and not under every other label: 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "- "+crd) {
		t.Errorf("the rerun's pass of %q did not replace the first shard's failure:\n%s", crd, out)
	}
	// Without the watch failure, netfork passes everything upstream passes.
	fixed := writeJUnit(t, "nf3.xml", report(spec("[sig-api-machinery] Watchers", "should observe [Conformance]", types.SpecStatePassed)))
	if code, out, _ := runTool("compare", "--baseline", "upstream", "upstream="+upstream, "netfork="+first+","+rerun+","+fixed); code != 0 {
		t.Errorf("exit %d once netfork passes what upstream passes:\n%s", code, out)
	}
}

// skippedBecause is a spec that skipped itself at run time, e.g. e2eskipper.Skipf.
func skippedBecause(container, text, why string) types.SpecReport {
	s := spec(container, text, types.SpecStateSkipped)
	s.Failure.Message = why
	return s
}

func TestCompareCountsASpecOneLabelDidNotRun(t *testing.T) {
	a := writeJUnit(t, "a.xml", report(spec("[sig-x] A", "runs [Conformance]", types.SpecStatePassed), skippedBecause("[sig-x] B", "runs [Conformance]", "no IPv6")))
	b := writeJUnit(t, "b.xml", report(skippedBecause("[sig-x] B", "runs [Conformance]", "no IPv6")))
	code, out, _ := runTool("compare", "--baseline", "a", "a="+a, "b="+b)
	if code != 1 || !strings.Contains(out, "- [sig-x] A runs [Conformance]\n    a passed\n    b not run") {
		t.Errorf("a spec b never ran: exit %d\n%s", code, out)
	}
}

func TestCompareKeepsAnOutcomeALaterRunLeftOut(t *testing.T) {
	// The parallel part ran A and B and left out the serial C; the serial part ran C and
	// lists A and B as skipped with no reason, as ginkgo lists every spec a filter left out.
	parallel := writeJUnit(t, "parallel.xml", report(spec("[sig-x] A", "runs", types.SpecStatePassed),
		spec("[sig-x] B", "runs", types.SpecStateFailed), spec("[sig-x] C", "runs [Serial]", types.SpecStateSkipped)))
	serial := writeJUnit(t, "serial.xml", report(spec("[sig-x] A", "runs", types.SpecStateSkipped),
		spec("[sig-x] B", "runs", types.SpecStateSkipped), skippedBecause("[sig-x] C", "runs [Serial]", "needs 3 nodes")))
	code, out, errOut := runTool("compare", "run="+parallel+","+serial)
	if code != 0 || !strings.Contains(out, "run    3      1       1       1") {
		t.Errorf("exit %d (%s): want A passed, B failed, C skipped by itself:\n%s", code, errOut, out)
	}
	// A file whose run left out every spec holds none.
	none := writeJUnit(t, "none.xml", report(spec("[sig-x] A", "runs", types.SpecStateSkipped)))
	if code, _, errOut := runTool("compare", "run="+none); code != 2 || !strings.Contains(errOut, "hold no specs") {
		t.Errorf("a run that ran nothing: exit %d, %q; want 2 and \"hold no specs\"", code, errOut)
	}
}

func TestCompareRejectsBadInput(t *testing.T) {
	good := writeJUnit(t, "good.xml", report(spec("[sig-x] A", "runs", types.SpecStatePassed)))
	notJUnit := writeJSON(t, report())
	for want, args := range map[string][]string{
		"want at least one":     {"compare"},
		"want LABEL=JUNIT":      {"compare", good},
		"given twice":           {"compare", "a=" + good, "a=" + good},
		"no such file":          {"compare", "a=" + good + ",missing.xml"},
		"is not a JUnit report": {"compare", "a=" + notJUnit},
		"none of the labels":    {"compare", "--baseline", "b", "a=" + good},
		"hold no specs":         {"compare", "a=" + writeJUnit(t, "empty.xml", report())},
	} {
		code, _, errOut := runTool(args...)
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%v: exit %d, %q; want 2 and an error saying %q", args, code, errOut, want)
		}
	}
}
