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
