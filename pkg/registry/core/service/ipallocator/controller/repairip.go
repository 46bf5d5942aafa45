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
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	corelisters "k8s.io/client-go/listers/core/v1"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controlplane/controller/defaultservicecidr"
	"k8s.io/utils/clock"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/repairloop"
	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator/clusterip"
)

const (
	// DefaultOrphanGracePeriod is how long an IPAddress must have existed, and
	// been seen without a Service using it, before it is deleted: upstream's
	// 60 s, the apiserver's request timeout, the longest an allocation may
	// precede the write of its Service.
	DefaultOrphanGracePeriod = 60 * time.Second

	// defaultServiceCIDRWait bounds how long the first pass waits for the
	// default ServiceCIDR. Upstream waits for it forever; without it every
	// ClusterIP is reported out of range, which is only noise, so after this
	// the pass runs with the ServiceCIDRs there are and the apiserver can
	// become ready within the post-start hook's minute.
	defaultServiceCIDRWait = 20 * time.Second

	// ipRepairWorkers is upstream's number of workers per queue.
	ipRepairWorkers = 5
	// maxRetries is how often an object is retried, with the queue's
	// exponential backoff, before it is left to the next full resync.
	maxRetries = 15
	// cacheSyncLogInterval spaces the log lines while the informers do not sync.
	cacheSyncLogInterval = 10 * time.Second
)

// orphanGracePeriod overrides DefaultOrphanGracePeriod when set; see SetOrphanGracePeriodForTest.
var orphanGracePeriod atomic.Int64

// SetOrphanGracePeriodForTest sets the orphan grace of repair loops built from
// now on, for tests that start whole apiservers in-process, and returns the
// function that restores the previous value.
func SetOrphanGracePeriodForTest(d time.Duration) (restore func()) {
	prev := orphanGracePeriod.Swap(int64(d))
	return func() { orphanGracePeriod.Store(prev) }
}

func currentOrphanGracePeriod() time.Duration {
	if d := time.Duration(orphanGracePeriod.Load()); d > 0 {
		return d
	}
	return DefaultOrphanGracePeriod
}

// RepairIPAddress keeps the IPAddress objects and the Services' ClusterIPs in
// one-to-one correspondence (KEP-1880), through the API, informers and the
// apiserver's IPAddress index only, so it works whichever ClusterIP allocator
// an apiserver runs. The index's objects carry only the fields it keeps.
type RepairIPAddress struct {
	client           kubernetes.Interface
	interval         time.Duration
	grace            time.Duration
	serviceCIDRWait  time.Duration
	firstPassBackoff wait.Backoff
	clock            clock.WithTicker

	services       corelisters.ServiceLister
	serviceIndexer cache.Indexer
	indexed        bool
	serviceCIDRs   networkinglisters.ServiceCIDRLister
	cidrs          *cidrSet
	ipAddresses    networkinglisters.IPAddressLister
	synced         []namedSync

	queue workqueue.TypedRateLimitingInterface[workItem]

	orphans    orphans
	outOfRange keySet
	// bitmapOnly is nil unless c.LegacyBitmaps were given.
	bitmapOnly *bitmapOnlyDetector

	// started is set, in RunUntil's goroutine, once the first pass succeeded.
	started bool

	broadcaster events.EventBroadcaster
	recorder    events.EventRecorder
}

// eventSource is an informer or the IPAddress index.
type eventSource interface {
	AddEventHandler(cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error)
}

// namedSync is an informer's HasSynced with the name used in logs.
type namedSync struct {
	name   string
	synced cache.InformerSynced
}

// itemKind says which side of the relation a queued key belongs to.
type itemKind int

const (
	serviceItem itemKind = iota
	ipAddressItem
)

// workItem is a Service (namespace/name) or an IPAddress (name) to reconcile.
type workItem struct {
	kind itemKind
	key  string
}

func (w workItem) String() string {
	if w.kind == serviceItem {
		return "Service " + w.key
	}
	return "IPAddress " + w.key
}

// newRepairIPAddress builds the IPAddress repair loop of c, on clk.
func newRepairIPAddress(c Config, clk clock.WithTicker) *RepairIPAddress {
	logger := klog.LoggerWithName(klog.Background(), reportingController)
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: c.Client.EventsV1()})
	serviceInformer := c.Informers.Core().V1().Services()
	serviceCIDRInformer := c.Informers.Networking().V1().ServiceCIDRs()

	r := &RepairIPAddress{
		client:           c.Client,
		interval:         c.Interval,
		grace:            currentOrphanGracePeriod(),
		serviceCIDRWait:  defaultServiceCIDRWait,
		firstPassBackoff: repairloop.DefaultFirstPassBackoff,
		clock:            clk,
		services:         serviceInformer.Lister(),
		serviceIndexer:   serviceInformer.Informer().GetIndexer(),
		serviceCIDRs:     serviceCIDRInformer.Lister(),
		cidrs:            newCIDRSet(serviceCIDRInformer.Lister()),
		ipAddresses:      c.IPAddresses.Lister(),
		synced: []namedSync{
			{name: "services", synced: serviceInformer.Informer().HasSynced},
			{name: "servicecidrs", synced: serviceCIDRInformer.Informer().HasSynced},
			{name: "ipaddresses", synced: c.IPAddresses.HasSynced},
		},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[workItem](),
			workqueue.TypedRateLimitingQueueConfig[workItem]{Name: "ipaddress_repair", Clock: clk},
		),
		orphans:     orphans{seen: map[string]orphanSeen{}},
		bitmapOnly:  newBitmapOnlyDetector(c, clk),
		outOfRange:  keySet{keys: map[string]struct{}{}},
		broadcaster: broadcaster,
		recorder:    broadcaster.NewRecorder(scheme.Scheme, reportingController),
	}

	// Without the index, finding the Service that holds an address lists them
	// all; that happens only for an IPAddress that looks orphaned.
	if err := clusterip.AddIndexer(serviceInformer.Informer()); err != nil {
		logger.Error(err, "Cannot index Services by ClusterIP; orphaned IPAddresses will be matched by listing the Services")
	} else {
		r.indexed = true
	}
	r.addEventHandlers(logger, serviceInformer.Informer(), serviceCIDRInformer.Informer(), c.IPAddresses)
	registration.Register(logger)
	return r
}

func (r *RepairIPAddress) addEventHandlers(logger klog.Logger, services, serviceCIDRs eventSource, ipAddresses eventSource) {
	handlers := []struct {
		informer eventSource
		handler  cache.ResourceEventHandler
	}{
		// What the informers list at start-up is left to the first pass,
		// which runs once they have synced.
		{services, cache.ResourceEventHandlerDetailedFuncs{
			AddFunc: func(obj any, initial bool) {
				if !initial {
					r.enqueueService(obj)
				}
			},
			UpdateFunc: r.serviceUpdated,
			DeleteFunc: r.serviceDeleted,
		}},
		{ipAddresses, cache.ResourceEventHandlerDetailedFuncs{
			AddFunc: func(obj any, initial bool) {
				if !initial {
					r.enqueueIPAddress(obj)
				}
			},
			UpdateFunc: func(_, obj any) { r.enqueueIPAddress(obj) },
			DeleteFunc: r.enqueueIPAddress,
		}},
		// A new ServiceCIDR can bring a ClusterIP reported out of range into range.
		{serviceCIDRs, cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { r.cidrs.invalidate(); r.enqueueOutOfRange() },
			UpdateFunc: func(any, any) { r.cidrs.invalidate(); r.enqueueOutOfRange() },
			DeleteFunc: func(any) { r.cidrs.invalidate() },
		}},
	}
	for _, h := range handlers {
		if _, err := h.informer.AddEventHandler(h.handler); err != nil {
			logger.Error(err, "Cannot watch for the IPAddress repair loop")
		}
	}
}

func (r *RepairIPAddress) enqueueService(obj any) {
	if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
		r.queue.Add(workItem{kind: serviceItem, key: key})
	}
}

// serviceUpdated queues the Service and the IPAddresses of the ClusterIPs it
// no longer holds (a Service that became ExternalName or headless).
func (r *RepairIPAddress) serviceUpdated(oldObj, newObj any) {
	r.enqueueService(newObj)
	oldSvc, ok1 := oldObj.(*corev1.Service)
	newSvc, ok2 := newObj.(*corev1.Service)
	if !ok1 || !ok2 {
		return
	}
	kept := map[string]bool{}
	for _, name := range clusterIPNames(newSvc) {
		kept[name] = true
	}
	for _, name := range clusterIPNames(oldSvc) {
		if !kept[name] {
			r.queue.Add(workItem{kind: ipAddressItem, key: name})
		}
	}
}

// serviceDeleted queues the IPAddresses of the deleted Service's ClusterIPs:
// the Service storage releases them right after the delete, and the repair
// takes over if that release never comes.
func (r *RepairIPAddress) serviceDeleted(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return
	}
	if key, err := cache.MetaNamespaceKeyFunc(svc); err == nil {
		r.outOfRange.remove(key)
	}
	for _, name := range clusterIPNames(svc) {
		r.queue.Add(workItem{kind: ipAddressItem, key: name})
	}
}

func (r *RepairIPAddress) enqueueIPAddress(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		r.queue.Add(workItem{kind: ipAddressItem, key: key})
	}
}

func (r *RepairIPAddress) enqueueOutOfRange() {
	for _, key := range r.outOfRange.list() {
		r.queue.Add(workItem{kind: serviceItem, key: key})
	}
}

// RunUntil waits for the informers, runs a first pass over every Service and
// IPAddress until it succeeds, calls onFirstSuccess, and then reconciles from
// the informers' events, with a full resync every interval, until stopCh closes.
func (r *RepairIPAddress) RunUntil(onFirstSuccess func(), stopCh chan struct{}) {
	ctx := wait.ContextForChannel(stopCh)
	logger := klog.LoggerWithName(klog.FromContext(ctx), reportingController)
	ctx = klog.NewContext(ctx, logger)

	var workers sync.WaitGroup
	defer workers.Wait()
	defer r.queue.ShutDown()
	if err := r.broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Cannot record IPAddress repair events")
	}
	defer r.broadcaster.Shutdown()

	logger.Info("Starting the IPAddress repair loop", "interval", r.interval, "orphanGracePeriod", r.grace)
	defer logger.Info("Shutting down the IPAddress repair loop")

	if !r.waitForCaches(ctx) {
		return
	}
	r.waitForDefaultServiceCIDR(ctx)

	repairloop.Loop{
		Interval:         r.interval,
		FirstPassBackoff: r.firstPassBackoff,
		Pass:             r.pass,
		OnAttemptError:   clusterIPRepairReconcileErrors.Inc,
	}.Run(ctx, func() {
		r.started = true
		for i := 0; i < ipRepairWorkers; i++ {
			workers.Add(1)
			go func() {
				defer workers.Done()
				wait.UntilWithContext(ctx, r.worker, time.Second)
			}()
		}
		onFirstSuccess()
	})
}

// waitForCaches waits until every informer has synced, logging those that
// have not every cacheSyncLogInterval; it returns false if ctx ends first.
// The informers retry their own lists with backoff.
func (r *RepairIPAddress) waitForCaches(ctx context.Context) bool {
	logger := klog.FromContext(ctx)
	start := time.Now()
	lastLog := start
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		var pending []string
		for _, s := range r.synced {
			if !s.synced() {
				pending = append(pending, s.name)
			}
		}
		if len(pending) == 0 {
			return true, nil
		}
		if time.Since(lastLog) >= cacheSyncLogInterval {
			logger.Info("Waiting for informers to sync before the first IPAddress repair pass", "pending", pending, "waited", time.Since(start).Round(time.Second))
			lastLog = time.Now()
		}
		return false, nil
	})
	return err == nil
}

// waitForDefaultServiceCIDR waits, at most serviceCIDRWait, for the
// ServiceCIDR the apiservers create from their flags.
func (r *RepairIPAddress) waitForDefaultServiceCIDR(ctx context.Context) {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, r.serviceCIDRWait, true, func(context.Context) (bool, error) {
		_, err := r.serviceCIDRs.Get(defaultservicecidr.DefaultServiceCIDRName)
		return err == nil, nil
	})
	if err != nil && ctx.Err() == nil {
		klog.FromContext(ctx).Info("The default ServiceCIDR does not exist yet; repairing with the ServiceCIDRs there are",
			"serviceCIDR", defaultservicecidr.DefaultServiceCIDRName, "waited", r.serviceCIDRWait)
	}
}

// pass is the first pass until it succeeds, and a full resync through the
// queue at every interval after it.
func (r *RepairIPAddress) pass(ctx context.Context) error {
	if r.started {
		r.enqueueAll(ctx)
		return nil
	}
	return r.syncAll(ctx)
}

// syncAll reconciles every Service and then every allocator-managed IPAddress
// in the informers' caches. It fails if any object failed with an error that
// a retry can cure; an object that failed for good is left to the queue.
func (r *RepairIPAddress) syncAll(ctx context.Context) error {
	items, err := r.allItems()
	if err != nil {
		return err
	}
	var failed []error
	for _, item := range items {
		err := r.sync(ctx, item)
		switch {
		case err == nil:
		case isPermanent(err):
			utilruntime.HandleErrorWithContext(ctx, err, "IPAddress repair cannot reconcile an object; retrying it in the background", "item", item)
			r.queue.AddRateLimited(item)
		default:
			failed = append(failed, fmt.Errorf("%s: %w", item, err))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("IPAddress repair pass: %d of %d objects failed, first: %w", len(failed), len(items), failed[0])
	}
	return nil
}

// enqueueAll queues every Service and allocator-managed IPAddress.
func (r *RepairIPAddress) enqueueAll(ctx context.Context) {
	items, err := r.allItems()
	if err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "IPAddress repair resync")
		return
	}
	for _, item := range items {
		r.queue.Add(item)
	}
}

// allItems lists the Services, then the allocator-managed IPAddresses, from
// the caches, each sorted, so that a pass reports in a stable order.
func (r *RepairIPAddress) allItems() ([]workItem, error) {
	services, err := r.services.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("listing Services from the cache: %w", err)
	}
	ipAddresses, err := r.ipAddresses.List(labels.SelectorFromSet(labels.Set{networkingv1.LabelManagedBy: managedBy}))
	if err != nil {
		return nil, fmt.Errorf("listing IPAddresses from the cache: %w", err)
	}
	items := make([]workItem, 0, len(services)+len(ipAddresses))
	for _, svc := range services {
		items = append(items, workItem{kind: serviceItem, key: svc.Namespace + "/" + svc.Name})
	}
	for _, a := range ipAddresses {
		items = append(items, workItem{kind: ipAddressItem, key: a.Name})
	}
	slices.SortFunc(items, func(a, b workItem) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.key, b.key))
	})
	return items, nil
}

func (r *RepairIPAddress) worker(ctx context.Context) {
	for r.processNext(ctx) {
	}
}

func (r *RepairIPAddress) processNext(ctx context.Context) bool {
	item, quit := r.queue.Get()
	if quit {
		return false
	}
	defer r.queue.Done(item)
	r.handleErr(ctx, item, r.sync(ctx, item))
	return true
}

func (r *RepairIPAddress) sync(ctx context.Context, item workItem) error {
	if item.kind == serviceItem {
		return r.syncService(ctx, item.key)
	}
	return r.syncIPAddress(ctx, item.key)
}

// handleErr retries a failed item with backoff, up to maxRetries; after that
// the next full resync picks it up again.
func (r *RepairIPAddress) handleErr(ctx context.Context, item workItem, err error) {
	if err == nil {
		r.queue.Forget(item)
		return
	}
	clusterIPRepairReconcileErrors.Inc()
	if r.queue.NumRequeues(item) < maxRetries {
		klog.FromContext(ctx).V(2).Info("IPAddress repair failed; retrying", "item", item, "err", err)
		r.queue.AddRateLimited(item)
		return
	}
	r.queue.Forget(item)
	utilruntime.HandleErrorWithContext(ctx, err, "IPAddress repair gave up until the next resync", "item", item, "retries", maxRetries)
}
