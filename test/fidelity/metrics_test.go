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

package fidelity

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/metrics/testutil"
)

// metricSeries are the values of the compared series, by name{labels}.
type metricSeries map[string]float64

// metrics reads and parses the apiserver's /metrics as the admin.
func (r *run) metrics(ctx context.Context) testutil.Metrics {
	return r.metricsAs(ctx, r.admin)
}

// metricsAs reads and parses the apiserver's /metrics as client.
func (r *run) metricsAs(ctx context.Context, client kubernetes.Interface) testutil.Metrics {
	return r.parseMetrics(r.rawMetrics(ctx, client))
}

// rawMetrics reads the apiserver's /metrics as client.
func (r *run) rawMetrics(ctx context.Context, client kubernetes.Interface) []byte {
	data, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		r.t.Fatalf("reading /metrics: %v", err)
	}
	return data
}

// parseMetrics parses what /metrics gave.
func (r *run) parseMetrics(data []byte) testutil.Metrics {
	parsed := testutil.NewMetrics()
	if err := testutil.ParseMetrics(string(data), &parsed); err != nil {
		r.t.Fatalf("parsing /metrics: %v", err)
	}
	return parsed
}

// postTimeouts is how many request handlers returned after their request was answered
// for them (apiserver_request_post_timeout_total{source="rest-handler"}, every status).
func (r *run) postTimeouts(ctx context.Context) float64 {
	var n float64
	for _, s := range r.metrics(ctx)[postTimeout] {
		if s.Metric["source"] == "rest-handler" {
			n += float64(s.Value)
		}
	}
	return n
}

// postTimeout counts the handlers that returned after their request was answered.
const postTimeout = "apiserver_request_post_timeout_total"

// scrape reads the apiserver's /metrics and keeps the compared series.
func (r *run) scrape(ctx context.Context) metricSeries {
	parsed := r.metrics(ctx)
	series := metricSeries{}
	for name, samples := range parsed {
		for _, s := range samples {
			labels := map[string]string{}
			for k, v := range s.Metric {
				if k != "__name__" {
					labels[string(k)] = string(v)
				}
			}
			if !compared(name, labels) {
				continue
			}
			if name == allocationErrors {
				// Which of a dual-stack Service's two families a refused create fails
				// on first varies from run to run; the errors are compared in all.
				delete(labels, "cidr")
			}
			series[seriesName(name, labels)] += float64(s.Value)
		}
	}
	return series
}

// allocationErrors is compared summed over its ServiceCIDRs (scrape says why).
const allocationErrors = "kube_apiserver_clusterip_allocator_allocation_errors_total"

// compared is the allowlist: requests and etcd writes of Services and IPAddresses, the
// users' requests as flow control dispatched them, the ClusterIP allocator's counters
// (allocations, errors, allocation count), and the counters of the harness's webhooks
// (calls, rejections, failing open, match conditions) and policy checks, and the request
// handlers that returned after their request was answered (a client left). Left out:
// reads and the exempt and system priority levels (the apiserver's own loops read and
// write on timers of their own; apfWindow measures the exempt level apart), durations,
// and the allocator's gauges of allocated and available addresses, which upstream's
// allocator sets from its informer's count and so when that has caught up.
func compared(name string, labels map[string]string) bool {
	switch {
	case name == "apiserver_request_total":
		return (labels["resource"] == "services" || labels["resource"] == "ipaddresses") && !isRead(labels["verb"])
	case name == "etcd_requests_total":
		resource := labels["resource"] + labels["type"]
		return (strings.HasPrefix(resource, "services") || strings.HasPrefix(resource, "ipaddresses")) && !isRead(labels["operation"])
	case name == "apiserver_flowcontrol_dispatched_requests_total":
		return labels["priority_level"] == "global-default"
	case strings.HasPrefix(name, "kube_apiserver_clusterip_allocator_"):
		return isCounter(name)
	case strings.HasPrefix(name, "apiserver_admission_webhook_"), strings.HasPrefix(name, "apiserver_admission_match_condition_"):
		return isCounter(name) && strings.HasSuffix(labels["name"], ".fidelity.netfork.io")
	case name == postTimeout:
		return true
	case name == "apiserver_validating_admission_policy_check_total":
		return strings.HasPrefix(labels["policy"], "fidelity-")
	}
	return false
}

// isCounter tells counters (totals, and the counts of histograms) from other series.
func isCounter(name string) bool {
	return strings.HasSuffix(name, "_total") || strings.HasSuffix(name, "_count")
}

// isRead tells reads (GET, LIST, WATCH; get, list, listWithCount, count, ...) from writes.
func isRead(verb string) bool {
	v := strings.ToLower(verb)
	return strings.HasPrefix(v, "get") || strings.HasPrefix(v, "list") || v == "watch" || v == "count"
}

func seriesName(name string, labels map[string]string) string {
	parts := make([]string, 0, len(labels))
	for _, k := range sortedKeys(labels) {
		parts = append(parts, fmt.Sprintf("%s=%q", k, labels[k]))
	}
	return name + "{" + strings.Join(parts, ",") + "}"
}

// metricRecords are the series that changed between before and after, with their change.
func metricRecords(before, after metricSeries) []record {
	names := map[string]bool{}
	for n := range before {
		names[n] = true
	}
	for n := range after {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var records []record
	for _, n := range sorted {
		if delta := after[n] - before[n]; delta != 0 {
			records = append(records, record{key: []string{"metrics", "scenario", n}, value: map[string]any{"delta": strconv.FormatFloat(delta, 'g', -1, 64)}})
		}
	}
	return records
}
