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
	family  corev1.IPFamily
	network *net.IPNet
	bitmap  rangeallocation.RangeRegistry
	// key names the bitmap in logs.
	key string
	// leaks is what the last successful pass found leaked in this bitmap.
	leaks repairloop.Leaks[string]
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
		family:  ipFamilyOf(network.IP),
		network: &network,
		bitmap:  bitmap,
		key:     key,
		leaks:   repairloop.Leaks[string]{},
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

// familyPass is one family's state during a pass.
type familyPass struct {
	*familyRange
	// snap is the stored bitmap, rewritten with the rebuilt one on save.
	snap *repairloop.Snapshot
	// stored decodes snap.Bitmap; rebuilt collects the ClusterIPs of the Services.
	stored  *ipallocator.Range
	rebuilt *ipallocator.Range
	// leaks is this pass's successor of familyRange.leaks.
	leaks repairloop.Leaks[string]
}

// runOnce rebuilds every family's bitmap from the Services and stores it.
func (r *Repair) runOnce(ctx context.Context) error {
	// The bitmaps are read before the Services are listed: an IP allocated
	// after the read either belongs to a listed Service or makes the write
	// below conflict, and an IP allocated before it whose Service is not listed
	// yet is held by the leak grace.
	passes := make(map[corev1.IPFamily]*familyPass, len(r.families))
	for _, f := range r.families {
		p, err := f.read(ctx)
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
		passes[f.family].holdLeaks(ctx)
	}
	for _, f := range r.families {
		p := passes[f.family]
		if err := p.save(ctx); err != nil {
			return err
		}
		f.leaks = p.leaks
	}
	return nil
}

// read starts a pass over f: the stored bitmap and an empty one to rebuild.
func (f *familyRange) read(ctx context.Context) (*familyPass, error) {
	snap, err := repairloop.Read(f.bitmap, f.network.String())
	if err != nil {
		return nil, fmt.Errorf("reading the ClusterIP bitmap %s: %w", f.key, err)
	}
	p := &familyPass{familyRange: f, snap: snap, leaks: repairloop.Leaks[string]{}}
	if p.stored, err = ipallocator.NewFromSnapshot(p.snap.Bitmap); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Stored ClusterIP bitmap cannot be read; rebuilding it from the Services",
			"key", f.key, "storedRange", p.snap.Bitmap.Range, "range", f.network.String())
		if p.stored, err = ipallocator.NewInMemory(f.network); err != nil {
			return nil, fmt.Errorf("creating an empty ClusterIP bitmap for %s: %w", f.network, err)
		}
	}
	if p.rebuilt, err = ipallocator.NewInMemory(f.network); err != nil {
		return nil, fmt.Errorf("creating the ClusterIP bitmap for %s: %w", f.network, err)
	}
	return p, nil
}

// holdLeaks keeps, for their grace, the IPs allocated in the stored bitmap that
// no Service uses, and releases those whose grace has run out.
func (p *familyPass) holdLeaks(ctx context.Context) {
	logger := klog.FromContext(ctx)
	var leaked []net.IP
	p.stored.ForEach(func(ip net.IP) {
		if !p.rebuilt.Has(ip) {
			leaked = append(leaked, ip)
		}
	})
	for _, ip := range leaked {
		hold, seen := p.familyRange.leaks.Observe(ip.String(), p.leaks)
		if !hold {
			clusterIPRepairIPErrors.WithLabelValues(errorTypeLeak).Inc()
			logger.Error(nil, "ClusterIP appears to have leaked: cleaning up", "ip", ip, "key", p.key, "passes", seen)
			continue
		}
		if seen == 1 {
			logger.Error(nil, "ClusterIP may have leaked: flagging for later clean up", "ip", ip, "key", p.key)
		}
		if err := p.rebuilt.Allocate(ip); err != nil {
			// Not counted: if it is a leak it is counted when its grace runs out.
			logger.Error(err, "ClusterIP may have leaked, but cannot be held", "ip", ip, "key", p.key)
		}
	}
}

// save stores the rebuilt bitmap unless it is what is stored already. A
// concurrent change to the bitmap makes it fail with a conflict.
func (p *familyPass) save(ctx context.Context) error {
	if err := p.rebuilt.Snapshot(p.snap.Bitmap); err != nil {
		return fmt.Errorf("encoding the ClusterIP bitmap %s: %w", p.key, err)
	}
	wrote, err := p.snap.Save(p.bitmap)
	if err != nil {
		return fmt.Errorf("writing the ClusterIP bitmap %s: %w", p.key, err)
	}
	if wrote {
		klog.FromContext(ctx).V(2).Info("Stored the repaired ClusterIP bitmap", "key", p.key, "range", p.snap.Bitmap.Range)
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
