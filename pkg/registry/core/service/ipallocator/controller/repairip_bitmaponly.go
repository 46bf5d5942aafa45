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
	"context"
	"net"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/rangeallocation"
	"k8s.io/utils/clock"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
)

// reasonBitmapOnlyAPIServer is the Warning event's reason when a bitmap-only
// apiserver shares the cluster with this one, which allocates IPAddresses
// without writing the bitmaps.
const reasonBitmapOnlyAPIServer = "BitmapOnlyAPIServerDetected"

// bitmapOnlyDetector tells when a bitmap-only apiserver (MultiCIDRServiceAllocator
// off, or a release before it) allocates ClusterIPs in a cluster where this
// apiserver allocates IPAddresses without writing the legacy bitmaps, a mix
// KEP-1880 calls unsafe: neither sees the other's allocations, so one address
// can go to two Services. Its sign: a Service created since this apiserver
// started whose IPAddress the repair loop had to create (every IPAddress
// allocator creates it before the Service) while the Service's ClusterIP is
// set in the legacy bitmap, which this apiserver does not write.
type bitmapOnlyDetector struct {
	// bitmaps are the legacy bitmaps, read only, by family; nil turns detection off.
	bitmaps map[api.IPFamily]rangeallocation.RangeRegistry
	since   time.Time
	// every spaces the event and log line; the metric counts each detection.
	every time.Duration

	mu         sync.Mutex
	lastReport time.Time
}

// newBitmapOnlyDetector detects from now, reporting at most once per repair
// interval; nil without c.LegacyBitmaps.
func newBitmapOnlyDetector(c Config, clk clock.Clock) *bitmapOnlyDetector {
	if len(c.LegacyBitmaps) == 0 {
		return nil
	}
	// A creationTimestamp has whole seconds: a Service created in the second
	// this apiserver started shows a time before now, and counts as new.
	return &bitmapOnlyDetector{bitmaps: c.LegacyBitmaps, since: clk.Now().Truncate(time.Second), every: c.Interval}
}

// checkBitmapOnly runs after the repair loop created svc's missing IPAddress of ip.
func (r *RepairIPAddress) checkBitmapOnly(ctx context.Context, svc *corev1.Service, ip net.IP) {
	d := r.bitmapOnly
	if d == nil || svc.CreationTimestamp.Time.Before(d.since) {
		return // a Service from before this apiserver started: a migration, not a mix
	}
	registry := d.bitmaps[api.IPFamily(ipFamilyOf(ip))]
	if registry == nil {
		return
	}
	stored, err := registry.Get()
	if err != nil || stored.ResourceVersion == "" || stored.Range == "" {
		return
	}
	bitmap, err := ipallocator.NewFromSnapshot(stored)
	if err != nil || !bitmap.Has(ip) {
		return
	}
	now := r.clock.Now()
	d.mu.Lock()
	quiet := !d.lastReport.IsZero() && now.Sub(d.lastReport) < d.every
	if !quiet {
		d.lastReport = now
	}
	d.mu.Unlock()
	if quiet {
		clusterIPRepairIPErrors.WithLabelValues(errorTypeBitmapOnly).Inc()
		return
	}
	r.report(ctx, svc, errorTypeBitmapOnly, reasonBitmapOnlyAPIServer, actionAllocation,
		"Cluster IP [%v]: %s was allocated by an apiserver that writes only the legacy bitmaps, while this apiserver allocates IPAddresses without writing them, so the two can give one ClusterIP to two Services; run every apiserver that allocates IPAddresses with --feature-gates=DisableAllocatorDualWrite=false until no bitmap-only apiserver is left",
		ipFamilyOf(ip), ip)
}
