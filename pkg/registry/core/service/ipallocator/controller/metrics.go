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

package controller

import (
	"k8s.io/component-base/metrics"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/metricsutil"
)

// Names, help and labels are upstream's (apiserver_clusterip_repair_*), so
// dashboards and alerts built for upstream read netfork's the same.
const (
	namespace = "apiserver"
	subsystem = "clusterip_repair"
)

// The values of the type label of clusterIPRepairIPErrors.
const (
	errorTypeLeak       = "leak"
	errorTypeRepair     = "repair"
	errorTypeFull       = "full"
	errorTypeOutOfRange = "outOfRange"
	errorTypeDuplicate  = "duplicate"
	errorTypeUnknown    = "unknown"
	errorTypeInvalid    = "invalid"
	// errorTypeBitmapOnly counts ClusterIPs a bitmap-only apiserver allocated
	// while this one allocates IPAddresses without writing the bitmaps.
	errorTypeBitmapOnly = "bitmapOnlyAPIServer"
)

// upstream-shim begin: k8s.io/kubernetes/pkg/registry/core/service/ipallocator/controller/metrics.go clusterIPRepairIPErrors,clusterIPRepairReconcileErrors

var (
	// clusterIPRepairIPErrors counts the problems the repair loop found, by type.
	clusterIPRepairIPErrors = metrics.NewCounterVec(
		&metrics.CounterOpts{
			Namespace:      namespace,
			Subsystem:      subsystem,
			Name:           "ip_errors_total",
			Help:           "Number of errors detected on clusterips by the repair loop broken down by type of error: leak, repair, full, outOfRange, duplicate, unknown, invalid",
			StabilityLevel: metrics.ALPHA,
		},
		[]string{"type"},
	)
	// clusterIPRepairReconcileErrors counts the passes that failed.
	clusterIPRepairReconcileErrors = metrics.NewCounter(
		&metrics.CounterOpts{
			Namespace:      namespace,
			Subsystem:      subsystem,
			Name:           "reconcile_errors_total",
			Help:           "Number of reconciliation failures on the clusterip repair reconcile loop",
			StabilityLevel: metrics.ALPHA,
		},
	)
)

// upstream-shim end

// registration registers the metrics once. Upstream's repair loop
// (k8s.io/kubernetes/pkg/registry/core/service/ipallocator/controller.NewRepair)
// registers the same names; netfork no longer builds it, but where a process
// did first (a test running upstream's code next to netfork's), its collectors
// are kept and netfork's count unexported.
var registration = &metricsutil.Registration{
	What:       "ClusterIP repair",
	Collectors: []metrics.Registerable{clusterIPRepairIPErrors, clusterIPRepairReconcileErrors},
}
