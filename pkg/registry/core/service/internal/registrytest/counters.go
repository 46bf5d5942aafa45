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

package registrytest

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
)

// FastBackoff keeps a repair loop's first-pass retries in the milliseconds.
var FastBackoff = wait.Backoff{Duration: time.Millisecond, Factor: 2, Steps: 100, Cap: 10 * time.Millisecond}

// TypeCounts reads name, a counter vector with a type label, for each of types,
// leaving out the types at zero.
func TypeCounts(t *testing.T, name string, vec *metrics.CounterVec, types []string) map[string]float64 {
	t.Helper()
	got := map[string]float64{}
	for _, typ := range types {
		v, err := testutil.GetCounterMetricValue(vec.WithLabelValues(typ))
		if err != nil {
			t.Fatalf("reading %s{type=%q}: %v", name, typ, err)
		}
		if v != 0 {
			got[typ] = v
		}
	}
	return got
}

// Count reads name, a counter.
func Count(t *testing.T, name string, c metrics.CounterMetric) float64 {
	t.Helper()
	v, err := testutil.GetCounterMetricValue(c)
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	return v
}
