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
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/metricsutil"
)

// upstream-shim begin: k8s.io/kubernetes/pkg/registry/core/service/ipallocator/metrics.go clusterIPAllocated,clusterIPAvailable,clusterIPAllocations,clusterIPAllocationErrors,clusterIPAllocationLatency

// The descriptors are upstream's (k8s.io/kubernetes/pkg/registry/core/service/ipallocator
// metrics.go at v1.37.2): same names, help, labels, buckets and stability, so
// dashboards and alerts written for upstream read netfork's bitmap unchanged.
const (
	namespace = "kube_apiserver"
	subsystem = "clusterip_allocator"
)

var (
	clusterIPAllocated = metrics.NewGaugeVec(
		&metrics.GaugeOpts{
			Namespace:      namespace,
			Subsystem:      subsystem,
			Name:           "allocated_ips",
			Help:           "Gauge measuring the number of allocated IPs for Services",
			StabilityLevel: metrics.ALPHA,
		},
		[]string{"cidr"},
	)
	clusterIPAvailable = metrics.NewGaugeVec(
		&metrics.GaugeOpts{
			Namespace:      namespace,
			Subsystem:      subsystem,
			Name:           "available_ips",
			Help:           "Gauge measuring the number of available IPs for Services",
			StabilityLevel: metrics.ALPHA,
		},
		[]string{"cidr"},
	)
	clusterIPAllocations = metrics.NewCounterVec(
		&metrics.CounterOpts{
			Namespace:      namespace,
			Subsystem:      subsystem,
			Name:           "allocation_total",
			Help:           "Number of Cluster IPs allocations",
			StabilityLevel: metrics.ALPHA,
		},
		[]string{"cidr", "scope"},
	)
	clusterIPAllocationErrors = metrics.NewCounterVec(
		&metrics.CounterOpts{
			Namespace:      namespace,
			Subsystem:      subsystem,
			Name:           "allocation_errors_total",
			Help:           "Number of errors trying to allocate Cluster IPs",
			StabilityLevel: metrics.ALPHA,
		},
		[]string{"cidr", "scope"},
	)
	clusterIPAllocationLatency = metrics.NewHistogramVec(
		&metrics.HistogramOpts{
			Namespace:      namespace,
			Subsystem:      subsystem,
			Name:           "allocation_duration_seconds",
			Help:           "Duration in seconds to allocate a Cluster IP by ServiceCIDR",
			Buckets:        metrics.DefBuckets,
			StabilityLevel: metrics.ALPHA,
		},
		[]string{"cidr"},
	)
)

// upstream-shim end

// registration registers the collectors the first time an allocator enables
// metrics: upstream's ipallocator registers collectors with these very names
// the first time one of its allocators does, so upstream's go first, through a
// throwaway Range, and netfork's take the names over.
var registration = &metricsutil.Registration{
	Upstream: func() { new(upstreamipallocator.Range).EnableMetrics() },
	What:     "ClusterIP allocator",
	Collectors: []metrics.Registerable{clusterIPAllocated, clusterIPAvailable, clusterIPAllocations,
		clusterIPAllocationErrors, clusterIPAllocationLatency},
}

// newMetricsRecorder records the metrics of the range over cidr, whose O(1)
// counts are used and free.
func newMetricsRecorder(cidr string, used, free func() int) *metricsutil.Recorder {
	registration.Register(klog.Background())
	return &metricsutil.Recorder{
		Allocated:   clusterIPAllocated.WithLabelValues(cidr),
		Available:   clusterIPAvailable.WithLabelValues(cidr),
		Latency:     clusterIPAllocationLatency.WithLabelValues(cidr),
		Allocations: metricsutil.NewScopeCounters(clusterIPAllocations, cidr),
		Errors:      metricsutil.NewScopeCounters(clusterIPAllocationErrors, cidr),
		Used:        used,
		Free:        free,
	}
}

// deleteCIDRMetrics drops the gauges of a ServiceCIDR prefix that is gone, so
// no stale series is left; its counters stay, as counters do.
func deleteCIDRMetrics(cidr string) {
	clusterIPAllocated.DeleteLabelValues(cidr)
	clusterIPAvailable.DeleteLabelValues(cidr)
}
