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

// Package chartfile is chart.json, the contract between the benchmark, which writes it
// (test/bench/internal/report), and bench-chart (test/bench/chart), which draws it: one
// chart per number of extra ServiceCIDRs, create latency percentiles against N, one
// series per contender, medians over rounds. It is a module of its own so that the
// plotting library stays out of the apiserver's module graph and the apiserver's out of
// the chart's. TestChartDataIsMediansPerK (the report's) and TestRunWritesAPNGPerChart (the
// chart's) pin its JSON from both sides.
package chartfile

// File is chart.json.
type File struct {
	Charts []Chart `json:"charts"`
}

// Chart is one chart: the runs with CIDRs extra ServiceCIDRs.
type Chart struct {
	CIDRs  int      `json:"cidrs"`
	Ns     []int    `json:"ns"`
	Series []Series `json:"series"`
}

// Series is one contender's medians at each of the chart's Ns; null where it has no run.
type Series struct {
	Contender string     `json:"contender"`
	P50       []*float64 `json:"p50_ms"`
	P90       []*float64 `json:"p90_ms"`
	P99       []*float64 `json:"p99_ms"`
	// Failed is true when some run of the series was not consistent.
	Failed bool `json:"failed"`
}
