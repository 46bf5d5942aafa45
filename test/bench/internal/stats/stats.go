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

package stats

import (
	"math"
	"slices"
	"time"
)

// LatencySummary are the percentiles the report shows for one phase.
type LatencySummary struct {
	P50, P90, P99, Max time.Duration
}

// Summarize sorts a copy of latencies and reads the percentiles off it.
func Summarize(latencies []time.Duration) LatencySummary {
	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	return LatencySummary{
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

// Spread describes one measure across rounds.
type Spread struct {
	Min, Max, Mean float64
	// CV is the coefficient of variation (standard deviation over mean), 0 for one value.
	CV float64
}

// SpreadOf summarizes values measured in different rounds.
func SpreadOf(values []float64) Spread {
	if len(values) == 0 {
		return Spread{}
	}
	s := Spread{Min: values[0], Max: values[0]}
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

// Median is the middle of values (the mean of the two middles for an even count).
func Median(values []float64) float64 {
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

// Milliseconds converts a duration for the report.
func Milliseconds(d time.Duration) float64 {
	return float64(d) / float64(time.Millisecond)
}

// Sum adds up a per-Service breakdown, such as a run's etcd requests per create.
func Sum(m map[string]float64) float64 {
	var total float64
	for _, v := range m {
		total += v
	}
	return total
}
