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

// Command conformance-compare splits a focused e2e suite into stable shards and merges the
// JUnit reports of any set of runs into one side-by-side table, so that a conformance run
// of several hours can go in parts and netfork's pass set can be held against upstream's
// apiserver on the same nodes.
//
//	conformance-compare shard --shard I/N SPECS.json
//	    prints a ginkgo --focus regexp that selects the I-th of N slices of the specs that a
//	    dry run (ginkgo --dry-run --json-report=SPECS.json) lists. A spec's slice depends on
//	    its own full text alone, so it stays in its slice when specs are added or removed.
//	conformance-compare compare [--baseline LABEL] LABEL=JUNIT[,JUNIT...]...
//	    prints, per label (e.g. netfork-single, upstream-single), the passed, failed and
//	    skipped counts over its JUnit files, where a later file's outcome of a spec replaces
//	    an earlier one's (a rerun shard) unless that run left the spec out (ginkgo lists the
//	    specs its filters did not select as skipped with no reason; they count nowhere), then
//	    every spec whose outcome differs between the labels and every spec that failed under
//	    all of them. With --baseline it exits 1 when a spec that passed under the baseline
//	    did not pass under another label.
package main
