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
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/onsi/ginkgo/v2/reporters"
)

// outcome is what happened to one spec in one label's runs.
type outcome string

const (
	passed  outcome = "passed"
	failed  outcome = "failed"
	skipped outcome = "skipped"
	// notRun marks a spec another label ran and this one did not.
	notRun outcome = "not run"
)

// outcomeOf reduces a JUnit test case's status to passed, skipped or failed; ginkgo's
// panicked, interrupted, aborted and timedout all failed the spec.
func outcomeOf(tc reporters.JUnitTestCase) outcome {
	switch tc.Status {
	case "passed":
		return passed
	case "skipped", "pending":
		return skipped
	default:
		return failed
	}
}

// labelRuns are one label's merged results: each spec's outcome and, for a failure, its message.
type labelRuns struct {
	label    string
	outcomes map[string]outcome
	messages map[string]string
}

// parseLabelArg splits LABEL=FILE[,FILE...].
func parseLabelArg(arg string) (string, []string, error) {
	label, files, ok := strings.Cut(arg, "=")
	if !ok || label == "" || files == "" {
		return "", nil, fmt.Errorf("%q: want LABEL=JUNIT[,JUNIT...]", arg)
	}
	return label, strings.Split(files, ","), nil
}

// filteredOut says whether a run left the spec out (its focus, skip or label filter did not
// select it): ginkgo lists such a spec as skipped with no reason, while a spec that skipped
// itself at run time gives one ("skipped - <why>").
func filteredOut(tc reporters.JUnitTestCase) bool {
	return tc.Status == "skipped" && (tc.Skipped == nil || tc.Skipped.Message == "skipped")
}

// loadLabel merges a label's JUnit files in order: a later file's outcome of a spec
// replaces an earlier one's, unless the later run left the spec out (another shard, or the
// serial part of the run whose parallel part ran it). Only It specs count, not suite setup
// nodes.
func loadLabel(label string, files []string) (labelRuns, error) {
	lr := labelRuns{label: label, outcomes: map[string]outcome{}, messages: map[string]string{}}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return lr, fmt.Errorf("%s: %w", label, err)
		}
		var suites reporters.JUnitTestSuites
		if err := xml.Unmarshal(data, &suites); err != nil {
			return lr, fmt.Errorf("%s: %s is not a JUnit report: %w", label, path, err)
		}
		for _, suite := range suites.TestSuites {
			for _, tc := range suite.TestCases {
				name, ok := strings.CutPrefix(tc.Name, "[It] ")
				if !ok || filteredOut(tc) {
					continue
				}
				o := outcomeOf(tc)
				lr.outcomes[name] = o
				delete(lr.messages, name)
				if o == failed {
					lr.messages[name] = failureMessage(tc)
				}
			}
		}
	}
	if len(lr.outcomes) == 0 {
		return lr, fmt.Errorf("%s: %s hold no specs", label, strings.Join(files, ", "))
	}
	return lr, nil
}

// failureMessage is the first line of why a spec failed.
func failureMessage(tc reporters.JUnitTestCase) string {
	msg := tc.Status
	switch {
	case tc.Failure != nil && tc.Failure.Message != "":
		msg = tc.Failure.Message
	case tc.Error != nil && tc.Error.Message != "":
		msg = tc.Error.Message
	}
	first, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	return first
}

// count is how many of a label's specs had the outcome.
func (lr labelRuns) count(o outcome) int {
	n := 0
	for _, got := range lr.outcomes {
		if got == o {
			n++
		}
	}
	return n
}

// of is the spec's outcome under the label, notRun if it never ran there.
func (lr labelRuns) of(spec string) outcome {
	if o, ok := lr.outcomes[spec]; ok {
		return o
	}
	return notRun
}

// comparison is every label's results and the specs that tell them apart.
type comparison struct {
	labels []labelRuns
	// differ are the specs whose outcome is not the same under every label; allFailed the
	// specs that failed under every label.
	differ, allFailed []string
}

// compare finds the specs whose outcomes differ and those that failed everywhere.
func compare(labels []labelRuns) comparison {
	c := comparison{labels: labels}
	specs := map[string]bool{}
	for _, lr := range labels {
		for spec := range lr.outcomes {
			specs[spec] = true
		}
	}
	for spec := range specs {
		first := labels[0].of(spec)
		same, allFailed := true, first == failed
		for _, lr := range labels[1:] {
			o := lr.of(spec)
			same = same && o == first
			allFailed = allFailed && o == failed
		}
		if !same {
			c.differ = append(c.differ, spec)
		}
		if allFailed {
			c.allFailed = append(c.allFailed, spec)
		}
	}
	sort.Strings(c.differ)
	sort.Strings(c.allFailed)
	return c
}

// regressions are the specs that passed under the baseline label and not under another.
func (c comparison) regressions(baseline string) []string {
	var base labelRuns
	for _, lr := range c.labels {
		if lr.label == baseline {
			base = lr
		}
	}
	var out []string
	for _, spec := range c.differ {
		if base.of(spec) != passed {
			continue
		}
		for _, lr := range c.labels {
			if lr.of(spec) != passed {
				out = append(out, spec)
				break
			}
		}
	}
	return out
}

// print writes the counts table and the specs that differ or failed everywhere.
func (c comparison) print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "label\tspecs\tpassed\tfailed\tskipped")
	for _, lr := range c.labels {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", lr.label, len(lr.outcomes), lr.count(passed), lr.count(failed), lr.count(skipped))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nspecs whose outcome differs (%d):\n", len(c.differ))
	for _, spec := range c.differ {
		var parts []string
		for _, lr := range c.labels {
			part := fmt.Sprintf("%s %s", lr.label, lr.of(spec))
			if msg := lr.messages[spec]; msg != "" {
				part += ": " + msg
			}
			parts = append(parts, part)
		}
		fmt.Fprintf(w, "- %s\n    %s\n", spec, strings.Join(parts, "\n    "))
	}
	fmt.Fprintf(w, "\nspecs that failed under every label (%d):\n", len(c.allFailed))
	for _, spec := range c.allFailed {
		fmt.Fprintf(w, "- %s\n    %s\n", spec, c.labels[0].messages[spec])
	}
	return nil
}

// runCompare loads every label, prints the comparison and, with --baseline, returns 1
// when a spec that passed under the baseline did not pass under another label.
func runCompare(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	baseline := fs.String("baseline", "", "label whose passing specs must pass under every other label")
	if err := fs.Parse(args); err != nil {
		return 0, fmt.Errorf("compare: %w", err)
	}
	if fs.NArg() == 0 {
		return 0, fmt.Errorf("compare: want at least one LABEL=JUNIT[,JUNIT...]")
	}
	var labels []labelRuns
	seen := map[string]bool{}
	for _, arg := range fs.Args() {
		label, files, err := parseLabelArg(arg)
		if err != nil {
			return 0, err
		}
		if seen[label] {
			return 0, fmt.Errorf("label %q is given twice: list all its files in one argument", label)
		}
		seen[label] = true
		lr, err := loadLabel(label, files)
		if err != nil {
			return 0, err
		}
		labels = append(labels, lr)
	}
	if *baseline != "" && !seen[*baseline] {
		return 0, fmt.Errorf("--baseline %q is none of the labels", *baseline)
	}
	c := compare(labels)
	if err := c.print(stdout); err != nil {
		return 0, err
	}
	if *baseline == "" {
		return 0, nil
	}
	reg := c.regressions(*baseline)
	fmt.Fprintf(stdout, "\nspecs that passed under %s and not under every other label: %d\n", *baseline, len(reg))
	if len(reg) > 0 {
		return 1, nil
	}
	return 0, nil
}
