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
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(values ...int) []time.Duration {
		out := make([]time.Duration, len(values))
		for i, v := range values {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 99, 0},
		{"one value is every percentile", ms(7), 50, 7 * time.Millisecond},
		{"p0 is the minimum", ms(1, 2, 3), 0, time.Millisecond},
		{"p50 of an odd count", ms(1, 2, 3), 50, 2 * time.Millisecond},
		{"p50 of an even count is the lower middle", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p90 of 1..100", ms(hundred...), 90, 90 * time.Millisecond},
		{"p99 of 1..100", ms(hundred...), 99, 99 * time.Millisecond},
		{"p99 of 10 values is the maximum", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		{"p100 is the maximum", ms(1, 2, 3), 100, 3 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func TestSummarizeSortsACopy(t *testing.T) {
	latencies := []time.Duration{3, 1, 2}
	got := Summarize(latencies)
	if want := (LatencySummary{P50: 2, P90: 3, P99: 3, Max: 3}); got != want {
		t.Errorf("summarize = %+v, want %+v", got, want)
	}
	if latencies[0] != 3 {
		t.Errorf("summarize reordered its input: %v", latencies)
	}
}

func TestSpreadOf(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   Spread
	}{
		{"none", nil, Spread{}},
		{"one round has no variation", []float64{100}, Spread{Min: 100, Max: 100, Mean: 100}},
		{"three rounds", []float64{90, 100, 110}, Spread{Min: 90, Max: 110, Mean: 100, CV: 0.1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SpreadOf(tt.values)
			if got.Min != tt.want.Min || got.Max != tt.want.Max || got.Mean != tt.want.Mean || math.Abs(got.CV-tt.want.CV) > 1e-9 {
				t.Errorf("SpreadOf(%v) = %+v, want %+v", tt.values, got, tt.want)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		values []float64
		want   float64
	}{{nil, 0}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := Median(tt.values); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", tt.values, got, tt.want)
		}
	}
}
