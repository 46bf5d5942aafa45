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
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	upstreamportallocator "k8s.io/kubernetes/pkg/registry/core/service/portallocator"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/metricsutil"
)

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

var registerMetricsOnce sync.Once

// registerMetrics registers the collectors in the legacy registry once per
// process. Upstream's portallocator registers collectors with these names
// with MustRegister the first time one of its allocators enables metrics,
// which upstream's core storage provider does when netfork builds it (netfork
// then replaces that allocator), and which would panic if netfork's were
// there first. As in netfork's ipallocator, upstream registers first, through
// a throwaway PortAllocator that builds nothing, and netfork's collectors then
// take the names over; a failure is logged once at V(2) and netfork's
// collectors count unexported.
func registerMetrics() {
	registerMetricsOnce.Do(func() {
		new(upstreamportallocator.PortAllocator).EnableMetrics()
		registrationClashes = metricsutil.TakeOver(klog.Background(),
			"NodePort allocator metric not registered; netfork's allocator will not export it",
			nodePortAllocated, nodePortAvailable, nodePortAllocations, nodePortAllocationErrors)
	})
}

// registrationClashes is, per metric, the error the legacy registry gave
// when netfork's collector was first registered: upstream's collector of the
// same descriptors (fully-qualified name, help, label names) being there
// gives prometheus's AlreadyRegisteredError; other descriptors, another error.
var registrationClashes map[string]error

// newMetricsRecorder records the allocator's metrics; used and free are its
// O(1) counts. Upstream records no NodePort allocation latency.
func newMetricsRecorder(used, free func() int) *metricsutil.Recorder {
	registerMetrics()
	return &metricsutil.Recorder{
		Allocated:   nodePortAllocated,
		Available:   nodePortAvailable,
		Allocations: metricsutil.NewScopeCounters(nodePortAllocations),
		Errors:      metricsutil.NewScopeCounters(nodePortAllocationErrors),
		Used:        used,
		Free:        free,
	}
}
