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
	"fmt"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/rangeallocation"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/repairloop"
	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
)

// reportingController is upstream's name for the bitmap repair loop, kept so
// its events read the same whichever apiserver emitted them.
const reportingController = "ipallocator-repair-controller"

// Repair rebuilds the legacy ClusterIP bitmaps, one per configured family,
// from the ClusterIPs of the Services, at start-up and every interval.
type Repair struct {
	interval         time.Duration
	firstPassBackoff wait.Backoff
	serviceClient    corev1client.ServicesGetter

	// families holds the primary family's range first, then the secondary's.
	families []*familyRange

	broadcaster events.EventBroadcaster
	recorder    events.EventRecorder
}

// familyRange is one family's range and the bitmap stored for it.
type familyRange struct {
	family corev1.IPFamily
	repairloop.StoredBitmap[net.IP, string]
}

// newBitmapRepair builds the repair loop of c's bitmaps.
func newBitmapRepair(c Config) *Repair {
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: c.Client.EventsV1()})
	r := &Repair{
		interval:         c.Interval,
		firstPassBackoff: repairloop.DefaultFirstPassBackoff,
		serviceClient:    c.Client.CoreV1(),
		broadcaster:      broadcaster,
		recorder:         broadcaster.NewRecorder(scheme.Scheme, reportingController),
	}
	r.families = append(r.families, newFamilyRange(c.PrimaryRange, c.PrimaryBitmap, ipallocator.PrimaryBitmapKey))
	if c.SecondaryRange.IP != nil {
		r.families = append(r.families, newFamilyRange(c.SecondaryRange, c.SecondaryBitmap, ipallocator.SecondaryBitmapKey))
	}
	// The constructor has no context; registration logs only at V(2) or on a bug.
	registration.Register(klog.LoggerWithName(klog.Background(), reportingController))
	return r
}

func newFamilyRange(network net.IPNet, bitmap rangeallocation.RangeRegistry, key string) *familyRange {
	return &familyRange{
		family: ipFamilyOf(network.IP),
		StoredBitmap: repairloop.StoredBitmap[net.IP, string]{
			Registry: bitmap,
			Key:      key,
			Range:    network.String(),
			Noun:     "ClusterIP",
			LogKey:   "ip",
			Decode: func(snap *api.RangeAllocation) (repairloop.Bitmap[net.IP], error) {
				return ipallocator.NewFromSnapshot(snap)
			},
			Empty:   func() (repairloop.Bitmap[net.IP], error) { return ipallocator.NewInMemory(&network) },
			LeakKey: net.IP.String,
			Leaked:  func() { clusterIPRepairIPErrors.WithLabelValues(errorTypeLeak).Inc() },
		},
	}
}

// RunUntil repairs the bitmaps until stopCh closes; see repairloop.Loop.Run.
func (r *Repair) RunUntil(onFirstSuccess func(), stopCh chan struct{}) {
	ctx := wait.ContextForChannel(stopCh)
	ctx = klog.NewContext(ctx, klog.LoggerWithName(klog.FromContext(ctx), reportingController))
	if err := r.broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Cannot record ClusterIP repair events")
	}
	defer r.broadcaster.Shutdown()

	repairloop.Loop{
		Interval:         r.interval,
		FirstPassBackoff: r.firstPassBackoff,
		Pass:             r.runOnce,
		OnAttemptError:   clusterIPRepairReconcileErrors.Inc,
	}.Run(ctx, onFirstSuccess)
}

// familyPass is one family's pass.
type familyPass = repairloop.BitmapPass[net.IP, string]

// runOnce rebuilds every family's bitmap from the Services and stores it.
func (r *Repair) runOnce(ctx context.Context) error {
	// The bitmaps are read before the Services are listed: an IP allocated
	// after the read either belongs to a listed Service or makes the write
	// below conflict, and an IP allocated before it whose Service is not listed
	// yet is held by the leak grace.
	passes := make(map[corev1.IPFamily]*familyPass, len(r.families))
	for _, f := range r.families {
		p, err := f.Read(ctx)
		if err != nil {
			return err
		}
		passes[f.family] = p
	}

	// No resourceVersion: the list is a consistent read, and the bitmap's
	// resourceVersion belongs to another collection, so it is not comparable.
	list, err := r.serviceClient.Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing Services to repair the ClusterIP bitmaps: %w", err)
	}
	for i := range list.Items {
		if err := r.markService(ctx, &list.Items[i], passes); err != nil {
			return err
		}
	}

	for _, f := range r.families {
		passes[f.family].HoldLeaks(ctx)
	}
	for _, f := range r.families {
		if err := passes[f.family].Save(ctx); err != nil {
			return err
		}
	}
	return nil
}

// ipFamilyOf is the family of ip, a valid IP.
func ipFamilyOf(ip net.IP) corev1.IPFamily {
	if netutils.IsIPv6(ip) {
		return corev1.IPv6Protocol
	}
	return corev1.IPv4Protocol
}
