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

package fidelity

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// absent is the value of a record or leaf one run never showed.
const absent = "<absent>"

// difference is one normalized key whose value differs between the two runs, in the steps
// named (once per occurrence).
type difference struct {
	Key      string `json:"key"`
	Steps    string `json:"steps,omitempty"`
	Netfork  string `json:"netfork"`
	Upstream string `json:"upstream"`
}

func (d difference) String() string {
	return fmt.Sprintf("%s\n    steps:    %s\n    netfork:  %s\n    upstream: %s", d.Key, d.Steps, d.Netfork, d.Upstream)
}

var (
	// numbered is a placeholder's number, which differs by step for the same kind of record.
	numbered = regexp.MustCompile(`<(ip|uid)-\d+>`)
	// family is an address family, which differs between the two addresses of a dual-stack
	// Service.
	family = regexp.MustCompile(`\bIPv[46]\b`)
)

// group folds the differences that show the same in several steps, or for several
// addresses, into one naming those steps (each once): its key with the step as "*", and key
// and values with addresses as <ip-N> and families as IPvN. The order is the first
// occurrence's. This also makes a difference that shows for one address of a dual-stack
// Service in one run and for the other in the next (the order netfork releases them in is
// a map's) the same.
func group(diffs []difference) []difference {
	var out []difference
	index := map[difference]int{}
	for _, d := range diffs {
		parts := strings.Split(d.Key, " | ")
		step := ""
		if len(parts) > 1 {
			step, parts[1] = parts[1], "*"
		}
		g := difference{Key: generalize(strings.Join(parts, " | ")), Netfork: generalize(d.Netfork), Upstream: generalize(d.Upstream)}
		if i, ok := index[g]; ok {
			if !slices.Contains(strings.Split(out[i].Steps, ", "), step) {
				out[i].Steps += ", " + step
			}
			continue
		}
		index[g] = len(out)
		g.Steps = step
		out = append(out, g)
	}
	return out
}

// accepted is one entry of differences.yaml: why netfork differs, and how it shows.
type accepted struct {
	Reason string `json:"reason"`
	// Sometimes marks differences that show in some runs only, because what one of the
	// apiservers does varies from run to run (the reason says why and how often): they
	// are accepted when they show and not missed when they do not.
	Sometimes bool `json:"sometimes,omitempty"`
	// Modes names the modes of the scenario the differences show in; none, every mode.
	Modes       []string     `json:"modes,omitempty"`
	Differences []difference `json:"differences"`
}

// inMode is the entries of list that hold in mode.
func inMode(list []accepted, mode string) []accepted {
	var out []accepted
	for _, a := range list {
		if len(a.Modes) == 0 || slices.Contains(a.Modes, mode) {
			out = append(out, a)
		}
	}
	return out
}

// compare lists the differences between two normalized runs: one per record only one run
// has, one per leaf of a record both have whose values differ, in the netfork run's order
// then the upstream run's.
func compare(nfKeys []string, nf map[string]leaves, upKeys []string, up map[string]leaves) []difference {
	var diffs []difference
	done := map[string]bool{}
	for _, key := range append(append([]string(nil), nfKeys...), upKeys...) {
		if done[key] {
			continue
		}
		done[key] = true
		a, inNF := nf[key]
		b, inUp := up[key]
		switch {
		case !inNF:
			diffs = append(diffs, difference{Key: key, Netfork: absent, Upstream: oneLine(b)})
		case !inUp:
			diffs = append(diffs, difference{Key: key, Netfork: oneLine(a), Upstream: absent})
		default:
			diffs = append(diffs, leafDiffs(key, a, b)...)
		}
	}
	return diffs
}

// leafDiffs compares two records leaf by leaf, in path order.
func leafDiffs(key string, a, b leaves) []difference {
	paths := map[string]string{}
	for p := range a {
		paths[p] = ""
	}
	for p := range b {
		paths[p] = ""
	}
	var diffs []difference
	for _, p := range sortedKeys(paths) {
		va, ok := a[p]
		if !ok {
			va = absent
		}
		vb, ok := b[p]
		if !ok {
			vb = absent
		}
		if va != vb {
			diffs = append(diffs, difference{Key: key + " | " + p, Netfork: va, Upstream: vb})
		}
	}
	return diffs
}

// generalize numbers no address and names no family.
func generalize(s string) string {
	return family.ReplaceAllString(numbered.ReplaceAllString(s, "<$1-N>"), "IPvN")
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// oneLine is a whole record on one line, its leaves in path order.
func oneLine(l leaves) string {
	if v, ok := l[""]; ok && len(l) == 1 {
		return v
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]string(l)); err != nil {
		return fmt.Sprintf("<unencodable: %v>", err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// readAccepted loads the list of accepted differences; every entry needs a reason.
func readAccepted(path string) ([]accepted, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []accepted
	if err := yaml.UnmarshalStrict(data, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, a := range list {
		if strings.TrimSpace(a.Reason) == "" {
			return nil, fmt.Errorf("%s: entry %d has no reason", path, i+1)
		}
		if len(a.Differences) == 0 {
			return nil, fmt.Errorf("%s: entry %d (%q) lists no difference", path, i+1, firstLine(a.Reason))
		}
		for _, m := range a.Modes {
			if !slices.Contains(modeNames(), m) {
				return nil, fmt.Errorf("%s: entry %d (%q) names mode %q; the modes are %v", path, i+1, firstLine(a.Reason), m, modeNames())
			}
		}
	}
	return list, nil
}

// check returns the differences the list does not name and the listed ones that did not
// show (but those listed as showing only sometimes), so a list that no longer holds fails
// as surely as a new difference.
func check(diffs []difference, list []accepted) (unlisted []difference, stale []difference) {
	listed := map[difference]bool{}
	for _, a := range list {
		for _, d := range a.Differences {
			listed[d] = true
		}
	}
	shown := map[difference]bool{}
	for _, d := range diffs {
		shown[d] = true
		if !listed[d] {
			unlisted = append(unlisted, d)
		}
	}
	for _, a := range list {
		if a.Sometimes {
			continue
		}
		for _, d := range a.Differences {
			if !shown[d] {
				stale = append(stale, d)
			}
		}
	}
	return unlisted, stale
}

// report is the failure message: what is new, what no longer shows, and the YAML to add.
func report(unlisted, stale []difference, listPath string) string {
	var b strings.Builder
	if len(unlisted) > 0 {
		fmt.Fprintf(&b, "%d difference(s) between netfork and upstream that %s does not list:\n", len(unlisted), listPath)
		for _, d := range unlisted {
			fmt.Fprintf(&b, "  %s\n", d)
		}
		fmt.Fprintf(&b, "either fix netfork, or accept them with their reason in %s:\n%s", listPath, unlistedYAML(unlisted))
	}
	if len(stale) > 0 {
		fmt.Fprintf(&b, "%d difference(s) %s lists no longer show; remove them (or restore what made them):\n", len(stale), listPath)
		for _, d := range stale {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	return b.String()
}

// unlistedYAML is an entry of the list accepting the unlisted differences, to edit.
func unlistedYAML(unlisted []difference) string {
	data, err := yaml.Marshal([]accepted{{Reason: "WHY netfork differs here (docs/differences.md says so)", Differences: unlisted}})
	if err != nil {
		return fmt.Sprintf("<unencodable: %v>", err)
	}
	return string(data)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
