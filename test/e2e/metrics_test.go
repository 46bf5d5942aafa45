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

package e2e

import (
	"context"
	"fmt"

	"k8s.io/component-base/metrics/testutil"
)

// scrape reads /metrics from the apiserver the suite's client reaches.
func scrape(ctx context.Context) (testutil.Metrics, error) {
	data, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("GET /metrics: %w", err)
	}
	m := testutil.NewMetrics()
	if err := testutil.ParseMetrics(string(data), &m); err != nil {
		return nil, fmt.Errorf("parsing /metrics: %w", err)
	}
	return m, nil
}

// labelValues are the values label takes across a metric's samples.
func labelValues(m testutil.Metrics, metric, label string) map[string]bool {
	values := map[string]bool{}
	for _, s := range m[metric] {
		for name, value := range s.Metric {
			if string(name) == label {
				values[string(value)] = true
			}
		}
	}
	return values
}

// featureEnabled reads kubernetes_feature_enabled for gate: known is false when the
// apiserver does not have the gate (an upstream apiserver and DualStackAPIServer).
func featureEnabled(m testutil.Metrics, gate string) (enabled, known bool) {
	for _, s := range m["kubernetes_feature_enabled"] {
		if string(s.Metric["name"]) == gate {
			return s.Value == 1, true
		}
	}
	return false, false
}
