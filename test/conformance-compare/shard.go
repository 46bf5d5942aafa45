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
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// shardSpec is I/N: the I-th (1-based) of N slices.
type shardSpec struct{ index, count int }

// parseShard reads I/N, with 1 <= I <= N.
func parseShard(s string) (shardSpec, error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || count < 1 || index < 1 || index > count {
		return shardSpec{}, fmt.Errorf("--shard %q: want I/N with 1 <= I <= N, e.g. 2/4", s)
	}
	return shardSpec{index: index, count: count}, nil
}

// holds says whether a spec, by its full text, is in the slice.
func (s shardSpec) holds(text string) bool {
	h := fnv.New32a()
	_, _ = h.Write([]byte(text)) // A hash's Write never fails.
	return int(h.Sum32()%uint32(s.count)) == s.index-1
}

// specTexts are the texts ginkgo's --focus matches, "<suite description> <spec full text>",
// of every It a dry-run JSON report selects, sorted and without repeats. The report lists the
// suite's every spec: those its focus, skip or label filter left out as skipped, pending ones
// as pending; neither belongs to any shard.
func specTexts(reports []types.Report) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.LeafNodeType != types.NodeTypeIt || s.State.Is(types.SpecStateSkipped|types.SpecStatePending) {
				continue
			}
			text := r.SuiteDescription + " " + s.FullText()
			if !seen[text] {
				seen[text] = true
				out = append(out, text)
			}
		}
	}
	sort.Strings(out)
	return out
}

// focusOf is a regexp that ginkgo's --focus matches to exactly the given texts.
func focusOf(texts []string) string {
	quoted := make([]string, len(texts))
	for i, t := range texts {
		quoted[i] = regexp.QuoteMeta(t)
	}
	return "^(" + strings.Join(quoted, "|") + ")$"
}

// readReports parses a ginkgo JSON report file.
func readReports(path string) ([]types.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return nil, fmt.Errorf("%s: not a ginkgo JSON report: %w", path, err)
	}
	return reports, nil
}

// runShard prints the focus regexp of one slice of a dry run's specs.
func runShard(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("shard", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	shard := fs.String("shard", "", "I/N: the I-th of N slices")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("shard: %w", err)
	}
	s, err := parseShard(*shard)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("shard: want one dry-run JSON report, got %d arguments", fs.NArg())
	}
	reports, err := readReports(fs.Arg(0))
	if err != nil {
		return err
	}
	all := specTexts(reports)
	if len(all) == 0 {
		return fmt.Errorf("%s lists no specs: was the dry run focused on nothing?", fs.Arg(0))
	}
	var mine []string
	for _, t := range all {
		if s.holds(t) {
			mine = append(mine, t)
		}
	}
	if len(mine) == 0 {
		return fmt.Errorf("shard %d/%d of %d specs is empty: use fewer shards", s.index, s.count, len(all))
	}
	_, err = fmt.Fprintln(stdout, focusOf(mine))
	return err
}
