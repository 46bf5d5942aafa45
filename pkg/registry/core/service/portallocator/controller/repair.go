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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/registry/core/rangeallocation"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/repairloop"
	"github.com/netfork/netfork/pkg/registry/core/service/portallocator"
)

// Runner runs a repair loop until stopCh closes, calling onFirstSuccess once
// after its first complete pass.
type Runner interface {
	RunUntil(onFirstSuccess func(), stopCh chan struct{})
}

var _ Runner = (*Repair)(nil)

// reportingController is upstream's name for the repair loop, kept so its
// events read the same whichever apiserver emitted them.
const reportingController = "portallocator-repair-controller"

// Repair rebuilds the NodePort bitmap from the Services at start-up and every interval.
type Repair struct {
	interval         time.Duration
	firstPassBackoff wait.Backoff
	serviceClient    corev1client.ServicesGetter
	portRange        utilnet.PortRange
	bitmap           rangeallocation.RangeRegistry
	// leaks is what the last successful pass found leaked.
	leaks repairloop.Leaks[int]

	broadcaster events.EventBroadcaster
	recorder    events.EventRecorder
}

// NewRepair returns the NodePort repair loop over bitmap.
func NewRepair(interval time.Duration, client kubernetes.Interface, portRange utilnet.PortRange, bitmap rangeallocation.RangeRegistry) Runner {
	return newRepair(interval, client, portRange, bitmap)
}

func newRepair(interval time.Duration, client kubernetes.Interface, portRange utilnet.PortRange, bitmap rangeallocation.RangeRegistry) *Repair {
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	// The constructor has no context; registration logs only at V(2) or on a bug.
	registration.Register(klog.LoggerWithName(klog.Background(), reportingController))
	return &Repair{
		interval:         interval,
		firstPassBackoff: repairloop.DefaultFirstPassBackoff,
		serviceClient:    client.CoreV1(),
		portRange:        portRange,
		bitmap:           bitmap,
		leaks:            repairloop.Leaks[int]{},
		broadcaster:      broadcaster,
		recorder:         broadcaster.NewRecorder(scheme.Scheme, reportingController),
	}
}

// RunUntil repairs the bitmap until stopCh closes; see repairloop.Loop.Run.
func (r *Repair) RunUntil(onFirstSuccess func(), stopCh chan struct{}) {
	ctx := wait.ContextForChannel(stopCh)
	ctx = klog.NewContext(ctx, klog.LoggerWithName(klog.FromContext(ctx), reportingController))
	if err := r.broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Cannot record NodePort repair events")
	}
	defer r.broadcaster.Shutdown()

	repairloop.Loop{
		Interval:         r.interval,
		FirstPassBackoff: r.firstPassBackoff,
		Pass:             r.runOnce,
		OnAttemptError:   nodePortRepairReconcileErrors.Inc,
	}.Run(ctx, onFirstSuccess)
}

// pass is the state of one pass.
type pass struct {
	// snap is the stored bitmap, rewritten with the rebuilt one on save.
	snap *repairloop.Snapshot
	// stored decodes snap.Bitmap; rebuilt collects the node ports of the Services.
	stored  *portallocator.PortAllocator
	rebuilt *portallocator.PortAllocator
	// leaks is this pass's successor of Repair.leaks.
	leaks repairloop.Leaks[int]
}

// runOnce rebuilds the bitmap from the Services and stores it.
func (r *Repair) runOnce(ctx context.Context) error {
	// The bitmap is read before the Services are listed: a port allocated after
	// the read either belongs to a listed Service or makes the write below
	// conflict, and a port allocated before it whose Service is not listed yet
	// is held by the leak grace.
	p, err := r.read(ctx)
	if err != nil {
		return err
	}
	// No resourceVersion: the list is a consistent read, and the bitmap's
	// resourceVersion belongs to another collection, so it is not comparable.
	list, err := r.serviceClient.Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing Services to repair the NodePort bitmap: %w", err)
	}
	for i := range list.Items {
		if err := r.markService(ctx, &list.Items[i], p); err != nil {
			return err
		}
	}
	r.holdLeaks(ctx, p)
	if err := r.save(ctx, p); err != nil {
		return err
	}
	r.leaks = p.leaks
	return nil
}

// read starts a pass: the stored bitmap and an empty one to rebuild.
func (r *Repair) read(ctx context.Context) (*pass, error) {
	snap, err := repairloop.Read(r.bitmap, r.portRange.String())
	if err != nil {
		return nil, fmt.Errorf("reading the NodePort bitmap %s: %w", portallocator.BitmapKey, err)
	}
	p := &pass{snap: snap, leaks: repairloop.Leaks[int]{}}
	if p.stored, err = portallocator.NewFromSnapshot(p.snap.Bitmap); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Stored NodePort bitmap cannot be read; rebuilding it from the Services",
			"key", portallocator.BitmapKey, "storedRange", p.snap.Bitmap.Range, "range", r.portRange.String())
		if p.stored, err = portallocator.NewInMemory(r.portRange); err != nil {
			return nil, fmt.Errorf("creating an empty NodePort bitmap for %s: %w", r.portRange.String(), err)
		}
	}
	if p.rebuilt, err = portallocator.NewInMemory(r.portRange); err != nil {
		return nil, fmt.Errorf("creating the NodePort bitmap for %s: %w", r.portRange.String(), err)
	}
	return p, nil
}

// holdLeaks keeps, for their grace, the ports allocated in the stored bitmap
// that no Service uses, and releases those whose grace has run out.
func (r *Repair) holdLeaks(ctx context.Context, p *pass) {
	logger := klog.FromContext(ctx)
	var leaked []int
	p.stored.ForEach(func(port int) {
		if !p.rebuilt.Has(port) {
			leaked = append(leaked, port)
		}
	})
	for _, port := range leaked {
		hold, seen := r.leaks.Observe(port, p.leaks)
		if !hold {
			nodePortRepairPortErrors.WithLabelValues(errorTypeLeak).Inc()
			logger.Error(nil, "NodePort appears to have leaked: cleaning up", "port", port, "passes", seen)
			continue
		}
		if seen == 1 {
			logger.Error(nil, "NodePort may have leaked: flagging for later clean up", "port", port)
		}
		if err := p.rebuilt.Allocate(port); err != nil {
			// Not counted: if it is a leak it is counted when its grace runs out.
			logger.Error(err, "NodePort may have leaked, but cannot be held", "port", port)
		}
	}
}

// save stores the rebuilt bitmap unless it is what is stored already. A
// concurrent change to the bitmap makes it fail with a conflict.
func (r *Repair) save(ctx context.Context, p *pass) error {
	if err := p.rebuilt.Snapshot(p.snap.Bitmap); err != nil {
		return fmt.Errorf("encoding the NodePort bitmap %s: %w", portallocator.BitmapKey, err)
	}
	wrote, err := p.snap.Save(r.bitmap)
	if err != nil {
		return fmt.Errorf("writing the NodePort bitmap %s: %w", portallocator.BitmapKey, err)
	}
	if wrote {
		klog.FromContext(ctx).V(2).Info("Stored the repaired NodePort bitmap", "key", portallocator.BitmapKey, "range", p.snap.Bitmap.Range)
	}
	return nil
}
