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
	"math"
	"slices"
	"time"
)

// latencySummary are the percentiles the report shows for one phase.
type latencySummary struct {
	P50, P90, P99, Max time.Duration
}

// summarize sorts a copy of latencies and reads the percentiles off it.
func summarize(latencies []time.Duration) latencySummary {
	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	return latencySummary{
		P50: percentile(sorted, 50),
		P90: percentile(sorted, 90),
		P99: percentile(sorted, 99),
		Max: percentile(sorted, 100),
	}
}

// percentile is the nearest-rank p-th percentile of sorted: the smallest value with at
// least p% of the values at or below it, so it is always a measured latency; 0 for none.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// spread describes one measure across rounds.
type spread struct {
	Min, Max, Mean float64
	// CV is the coefficient of variation (standard deviation over mean), 0 for one value.
	CV float64
}

// spreadOf summarizes values measured in different rounds.
func spreadOf(values []float64) spread {
	if len(values) == 0 {
		return spread{}
	}
	s := spread{Min: values[0], Max: values[0]}
	var sum float64
	for _, v := range values {
		s.Min, s.Max = min(s.Min, v), max(s.Max, v)
		sum += v
	}
	s.Mean = sum / float64(len(values))
	if len(values) < 2 || s.Mean == 0 {
		return s
	}
	var squares float64
	for _, v := range values {
		squares += (v - s.Mean) * (v - s.Mean)
	}
	s.CV = math.Sqrt(squares/float64(len(values)-1)) / s.Mean
	return s
}

// median is the middle of values (the mean of the two middles for an even count).
func median(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	mid := len(sorted) / 2
	if len(sorted)%2 == 1 {
		return sorted[mid]
	}
	return (sorted[mid-1] + sorted[mid]) / 2
}

// milliseconds converts a duration for the report.
func milliseconds(d time.Duration) float64 {
	return float64(d) / float64(time.Millisecond)
}
