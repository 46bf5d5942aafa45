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

// RateCurve is a phase's rate in each of parts equal shares of its calls, in calls per
// second, from the times (since the phase started) at which each call ended: how the rate
// changed as the Services accumulated. A share that ended in the same instant as the one
// before it reads 0; fewer calls than parts give no curve.
func RateCurve(ends []time.Duration, parts int) []float64 {
	if parts < 1 || len(ends) < parts {
		return nil
	}
	sorted := slices.Clone(ends)
	slices.Sort(sorted)
	curve := make([]float64, parts)
	done, doneAt := 0, time.Duration(0)
	for k := 1; k <= parts; k++ {
		upTo := int(math.Ceil(float64(k) * float64(len(sorted)) / float64(parts)))
		at := sorted[upTo-1]
		if dt := at - doneAt; dt > 0 {
			curve[k-1] = float64(upTo-done) / dt.Seconds()
		}
		done, doneAt = upTo, at
	}
	return curve
}
