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

package portallocator

import (
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	upstreamportallocator "k8s.io/kubernetes/pkg/registry/core/service/portallocator"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/metricsutil"
)

// upstream-shim begin: k8s.io/kubernetes/pkg/registry/core/service/portallocator/metrics.go nodePortAllocated,nodePortAvailable,nodePortAllocations,nodePortAllocationErrors

// The descriptors are upstream's (k8s.io/kubernetes/pkg/registry/core/service/portallocator
// metrics.go at v1.37.2): same names, help, labels and stability.
const (
	namespace = "kube_apiserver"
	subsystem = "nodeport_allocator"
)

var (
	nodePortAllocated = metrics.NewGauge(
		&metrics.GaugeOpts{
			Namespace:      namespace,
			Subsystem:      subsystem,
			Name:           "allocated_ports",
			Help:           "Gauge measuring the number of allocated NodePorts for Services",
			StabilityLevel: metrics.ALPHA,
		},
	)
	nodePortAvailable = metrics.NewGauge(
		&metrics.GaugeOpts{
			Namespace:      namespace,
			Subsystem:      subsystem,
			Name:           "available_ports",
			Help:           "Gauge measuring the number of available NodePorts for Services",
			StabilityLevel: metrics.ALPHA,
		},
	)
	nodePortAllocations = metrics.NewCounterVec(
		&metrics.CounterOpts{
			Namespace:      namespace,
			Subsystem:      subsystem,
			Name:           "allocation_total",
			Help:           "Number of NodePort allocations",
			StabilityLevel: metrics.ALPHA,
		},
		[]string{"scope"},
	)
	nodePortAllocationErrors = metrics.NewCounterVec(
		&metrics.CounterOpts{
			Namespace:      namespace,
			Subsystem:      subsystem,
			Name:           "allocation_errors_total",
			Help:           "Number of errors trying to allocate NodePort",
			StabilityLevel: metrics.ALPHA,
		},
		[]string{"scope"},
	)
)

// upstream-shim end

// registration registers the collectors the first time the allocator enables
// metrics, over upstream's (registered first through a throwaway PortAllocator),
// as netfork's ipallocator does.
var registration = &metricsutil.Registration{
	Upstream:   func() { new(upstreamportallocator.PortAllocator).EnableMetrics() },
	What:       "NodePort allocator",
	Collectors: []metrics.Registerable{nodePortAllocated, nodePortAvailable, nodePortAllocations, nodePortAllocationErrors},
}

// newMetricsRecorder records the allocator's metrics; used and free are its
// O(1) counts. Upstream records no NodePort allocation latency.
func newMetricsRecorder(used, free func() int) *metricsutil.Recorder {
	registration.Register(klog.Background())
	return &metricsutil.Recorder{
		Allocated:   nodePortAllocated,
		Available:   nodePortAvailable,
		Allocations: metricsutil.NewScopeCounters(nodePortAllocations),
		Errors:      metricsutil.NewScopeCounters(nodePortAllocationErrors),
		Used:        used,
		Free:        free,
	}
}
