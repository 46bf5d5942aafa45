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
	"testing"
	"time"
)

func TestRateCurveFollowsASlowingPhase(t *testing.T) {
	// 20 calls in two halves: the first 10 end 0.1 s apart (10/s), the last 10 0.5 s
	// apart (2/s), handed in out of order as the workers finish them.
	var ends []time.Duration
	for i := 1; i <= 10; i++ {
		ends = append(ends, time.Second+time.Duration(i)*500*time.Millisecond, time.Duration(i)*100*time.Millisecond)
	}
	got := RateCurve(ends, 2)
	if len(got) != 2 || !near(got[0], 10) || !near(got[1], 2) {
		t.Errorf("RateCurve of a phase that slows from 10/s to 2/s = %v, want [10 2]", got)
	}
	deciles := RateCurve(ends, 10)
	if len(deciles) != 10 || !near(deciles[0], 10) || !near(deciles[4], 10) || !near(deciles[9], 2) {
		t.Errorf("deciles = %v, want 10/s for the first five and 2/s for the last", deciles)
	}
}

func TestRateCurveEdges(t *testing.T) {
	if got := RateCurve(make([]time.Duration, 5), 10); got != nil {
		t.Errorf("5 calls in 10 parts = %v, want no curve", got)
	}
	// Every call ended at once: no share took measurable time.
	if got := RateCurve(make([]time.Duration, 4), 2); len(got) != 2 || got[0] != 0 || got[1] != 0 {
		t.Errorf("calls that all ended at 0 = %v, want [0 0]", got)
	}
	if got := RateCurve([]time.Duration{time.Second}, 0); got != nil {
		t.Errorf("0 parts = %v, want no curve", got)
	}
}

// near says whether two rates agree to a millionth, past float rounding.
func near(a, b float64) bool {
	return a-b < 1e-6 && b-a < 1e-6
}
