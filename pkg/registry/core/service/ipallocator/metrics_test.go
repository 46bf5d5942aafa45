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

package ipallocator

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/registrytest"
)

// metricsCIDR is the range only the metrics tests enable metrics on.
const metricsCIDR = "10.10.0.0/28"

var exportedNames = []string{
	"kube_apiserver_clusterip_allocator_allocated_ips",
	"kube_apiserver_clusterip_allocator_available_ips",
	"kube_apiserver_clusterip_allocator_allocation_total",
	"kube_apiserver_clusterip_allocator_allocation_errors_total",
}

func TestMetrics(t *testing.T) {
	// The collectors are the process's: start from zero, so that the test
	// counts only its own allocations when it runs again (go test -count).
	for _, v := range []interface{ Reset() }{clusterIPAllocated, clusterIPAvailable, clusterIPAllocations, clusterIPAllocationErrors, clusterIPAllocationLatency} {
		v.Reset()
	}
	// Upstream's allocator registers its collectors first, as its
	// MetaAllocator does when MultiCIDRServiceAllocator is on.
	newUpstreamRange(t, "10.9.0.0/24").EnableMetrics()

	r := newTestRange(t, metricsCIDR)
	r.EnableMetrics()
	newUpstreamRange(t, "10.9.1.0/24").EnableMetrics() // no panic either way round

	registrytest.WantRegisteredOverUpstream(t, registration.Clashes(), clusterIPAllocated, clusterIPAvailable, clusterIPAllocations, clusterIPAllocationErrors, clusterIPAllocationLatency)

	type step struct {
		name    string
		do      func() error
		wantErr bool
	}
	steps := []step{
		{"static", func() error { return r.Allocate(ip(t, "10.10.0.1")) }, false},
		{"static, taken", func() error { return r.Allocate(ip(t, "10.10.0.1")) }, true},
		{"static, out of range", func() error { return r.Allocate(ip(t, "10.10.1.1")) }, true},
		{"dry run, not counted", func() error { return r.DryRun().Allocate(ip(t, "10.10.1.1")) }, true},
	}
	allocateNext := func() error { _, err := r.AllocateNext(); return err }
	for range 13 {
		steps = append(steps, step{"dynamic", allocateNext, false})
	}
	steps = append(steps,
		step{"dynamic, full", allocateNext, true},
		step{"release", func() error { return r.Release(ip(t, "10.10.0.1")) }, false},
	)
	for _, s := range steps {
		if err := s.do(); (err != nil) != s.wantErr {
			t.Fatalf("%s: error %v, want error %v", s.name, err, s.wantErr)
		}
	}

	want := `
# HELP kube_apiserver_clusterip_allocator_allocated_ips [ALPHA] Gauge measuring the number of allocated IPs for Services
# TYPE kube_apiserver_clusterip_allocator_allocated_ips gauge
kube_apiserver_clusterip_allocator_allocated_ips{cidr="10.10.0.0/28"} 13
# HELP kube_apiserver_clusterip_allocator_available_ips [ALPHA] Gauge measuring the number of available IPs for Services
# TYPE kube_apiserver_clusterip_allocator_available_ips gauge
kube_apiserver_clusterip_allocator_available_ips{cidr="10.10.0.0/28"} 1
# HELP kube_apiserver_clusterip_allocator_allocation_total [ALPHA] Number of Cluster IPs allocations
# TYPE kube_apiserver_clusterip_allocator_allocation_total counter
kube_apiserver_clusterip_allocator_allocation_total{cidr="10.10.0.0/28",scope="dynamic"} 13
kube_apiserver_clusterip_allocator_allocation_total{cidr="10.10.0.0/28",scope="static"} 1
# HELP kube_apiserver_clusterip_allocator_allocation_errors_total [ALPHA] Number of errors trying to allocate Cluster IPs
# TYPE kube_apiserver_clusterip_allocator_allocation_errors_total counter
kube_apiserver_clusterip_allocator_allocation_errors_total{cidr="10.10.0.0/28",scope="dynamic"} 1
kube_apiserver_clusterip_allocator_allocation_errors_total{cidr="10.10.0.0/28",scope="static"} 2
`
	if got := exported(t, metricsCIDR); got != strings.TrimPrefix(want, "\n") {
		t.Errorf("exported metrics for %s:\n%s\nwant:\n%s", metricsCIDR, got, want)
	}

	latency, err := testutil.GetHistogramVecFromGatherer(legacyregistry.DefaultGatherer,
		"kube_apiserver_clusterip_allocator_allocation_duration_seconds", map[string]string{"cidr": metricsCIDR})
	if err != nil {
		t.Fatalf("allocation_duration_seconds: %v", err)
	}
	if got := latency.GetAggregatedSampleCount(); got != 14 {
		t.Errorf("allocation_duration_seconds count = %d, want 14 successful allocations", got)
	}
	for _, h := range latency {
		var bounds []float64
		for _, b := range h.GetBucket() {
			bounds = append(bounds, b.GetUpperBound())
		}
		if !slices.Equal(bounds, metrics.DefBuckets) {
			t.Errorf("allocation_duration_seconds buckets = %v, want upstream's DefBuckets", bounds)
		}
	}
}

// exported is the legacy registry's exposition of exportedNames, only the
// series of cidr, so other tests' ranges do not matter.
func exported(t *testing.T, cidr string) string {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	var out strings.Builder
	for _, name := range exportedNames {
		for _, mf := range families {
			if mf.GetName() != name {
				continue
			}
			kept := mf.Metric[:0]
			for _, m := range mf.Metric {
				if testutil.LabelsMatch(m, map[string]string{"cidr": cidr}) {
					kept = append(kept, m)
				}
			}
			mf.Metric = kept
			if _, err := testutil.MetricFamilyToText(&out, mf); err != nil {
				t.Fatalf("MetricFamilyToText: %v", err)
			}
		}
	}
	return out.String()
}

// TestMetricsNetforkFirst runs in a child process, where no collector is
// registered yet, the order TestMetrics cannot: netfork's range enables
// metrics before any upstream allocator does, which must not make upstream's
// MustRegister panic, and netfork's numbers must be the ones exported.
func TestMetricsNetforkFirst(t *testing.T) {
	if registrytest.InChild() {
		r := newTestRange(t, metricsCIDR)
		r.EnableMetrics()
		newUpstreamRange(t, "10.9.0.0/24").EnableMetrics()
		if err := r.Allocate(ip(t, "10.10.0.1")); err != nil {
			t.Fatalf("Allocate: %v", err)
		}
		want := `
# HELP kube_apiserver_clusterip_allocator_allocated_ips [ALPHA] Gauge measuring the number of allocated IPs for Services
# TYPE kube_apiserver_clusterip_allocator_allocated_ips gauge
kube_apiserver_clusterip_allocator_allocated_ips{cidr="10.10.0.0/28"} 1
`
		if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want), exportedNames[0]); err != nil {
			t.Errorf("exported metrics: %v", err)
		}
		return
	}
	registrytest.RunInChild(t)
}
