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
	api "k8s.io/kubernetes/pkg/apis/core"
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
	bitmap           *repairloop.StoredBitmap[int, int]

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
		bitmap: &repairloop.StoredBitmap[int, int]{
			Registry: bitmap,
			Key:      portallocator.BitmapKey,
			Range:    portRange.String(),
			Noun:     "NodePort",
			LogKey:   "port",
			Decode: func(snap *api.RangeAllocation) (repairloop.Bitmap[int], error) {
				return portallocator.NewFromSnapshot(snap)
			},
			Empty:   func() (repairloop.Bitmap[int], error) { return portallocator.NewInMemory(portRange) },
			LeakKey: func(port int) int { return port },
			Leaked:  func() { nodePortRepairPortErrors.WithLabelValues(errorTypeLeak).Inc() },
		},
		broadcaster: broadcaster,
		recorder:    broadcaster.NewRecorder(scheme.Scheme, reportingController),
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
type pass = repairloop.BitmapPass[int, int]

// runOnce rebuilds the bitmap from the Services and stores it.
func (r *Repair) runOnce(ctx context.Context) error {
	// The bitmap is read before the Services are listed: a port allocated after
	// the read either belongs to a listed Service or makes the write below
	// conflict, and a port allocated before it whose Service is not listed yet
	// is held by the leak grace.
	p, err := r.bitmap.Read(ctx)
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
	p.HoldLeaks(ctx)
	return p.Save(ctx)
}
