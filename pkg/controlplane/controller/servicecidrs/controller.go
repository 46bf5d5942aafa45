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

package servicecidrs

import (
	"context"
	"net/netip"
	"sync"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	networkingv1informers "k8s.io/client-go/informers/networking/v1"
	"k8s.io/client-go/kubernetes"
	networkingv1listers "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/netfork/netfork/pkg/controlplane/controller/internal/handlers"
	"github.com/netfork/netfork/pkg/controlplane/controller/internal/servicecidrutil"
)

const (
	// Finalizer is upstream's ServiceCIDR protection finalizer, so objects
	// finalized by kube-controller-manager and by netfork are interchangeable.
	Finalizer = "networking.k8s.io/service-cidr-finalizer"

	// DefaultDeletionGracePeriod is how long a ServiceCIDR being deleted keeps
	// its finalizer at least, so that an allocation an apiserver made before it
	// saw the deletion lands and can block it (KEP-1880). Upstream's
	// kube-controller-manager waits 10 s; the KEP says 60 s.
	DefaultDeletionGracePeriod = 60 * time.Second

	// controllerName is upstream's, as field manager and event reporter.
	controllerName = "service-cidr-controller"
	// maxRetries drops a key after about 80 s of failures; events bring it back.
	maxRetries = 15
)

// Controller keeps the protection finalizer and the Ready condition on every
// ServiceCIDR and removes the finalizer from one being deleted once no
// IPAddress depends on it.
type Controller struct {
	client      kubernetes.Interface
	cidrLister  networkingv1listers.ServiceCIDRLister
	queue       workqueue.TypedRateLimitingInterface[string]
	recorder    events.EventRecorder
	clock       clock.WithTicker
	gracePeriod time.Duration

	// addresses are every IPAddress object's address.
	addresses *addressSet

	// mu guards deleting, the usable ranges of each ServiceCIDR being deleted
	// (the only ones an IPAddress event can concern), and blockedReported, the
	// UID of each one whose blocked deletion has had its event, so a stale
	// cache does not repeat it.
	mu              sync.Mutex
	deleting        map[string][]addrRange
	blockedReported map[string]types.UID

	handlers handlers.Set
}

// Option changes a Controller built by New.
type Option func(*Controller)

// WithDeletionGracePeriod replaces DefaultDeletionGracePeriod; tests shorten it.
func WithDeletionGracePeriod(d time.Duration) Option {
	return func(c *Controller) { c.gracePeriod = d }
}

// WithClock replaces the real clock, for the grace period and the queue's delays.
func WithClock(clk clock.WithTicker) Option {
	return func(c *Controller) { c.clock = clk }
}

// WithRecorder replaces the events/v1 recorder Run would create.
func WithRecorder(recorder events.EventRecorder) Option {
	return func(c *Controller) { c.recorder = recorder }
}

// New returns a controller fed by the ServiceCIDR informer and ipAddresses. Its
// event handlers stay registered until Run returns, so build one per Run.
func New(client kubernetes.Interface, cidrInformer networkingv1informers.ServiceCIDRInformer,
	ipAddresses servicecidrutil.EventSource, opts ...Option) (*Controller, error) {
	c := &Controller{
		client:      client,
		cidrLister:  cidrInformer.Lister(),
		clock:       clock.RealClock{},
		gracePeriod: DefaultDeletionGracePeriod,
		addresses:   newAddressSet(),
		deleting:    map[string][]addrRange{},

		blockedReported: map[string]types.UID{},
	}
	for _, opt := range opts {
		opt(c)
	}
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "service_cidrs", Clock: c.clock},
	)

	if err := c.handlers.Add(cidrInformer.Informer(), cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { c.onServiceCIDR(obj, false) },
		UpdateFunc: func(_, obj interface{}) { c.onServiceCIDR(obj, false) },
		DeleteFunc: func(obj interface{}) { c.onServiceCIDR(obj, true) },
	}); err != nil {
		return nil, err
	}
	if err := c.handlers.Add(ipAddresses, cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { c.onIPAddress(obj, true) },
		UpdateFunc: func(_, obj interface{}) { c.onIPAddress(obj, true) },
		DeleteFunc: func(obj interface{}) { c.onIPAddress(obj, false) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run syncs with workers goroutines until ctx ends, then unregisters the
// controller from its informers. The informers must be started by their factory.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx).WithName(controllerName)
	ctx = klog.NewContext(ctx, logger)
	if c.recorder == nil {
		c.recorder = servicecidrutil.StartRecorder(ctx, c.client, controllerName)
	}
	logger.Info("Starting", "deletionGracePeriod", c.gracePeriod)
	defer logger.Info("Shutting down")
	loops := make([]func(context.Context), workers)
	for i := range loops {
		loops[i] = func(ctx context.Context) { wait.UntilWithContext(ctx, c.worker, time.Second) }
	}
	c.handlers.Run(ctx, c.queue.ShutDown, loops...)
}

// hasSynced tells whether both informers have handed the controller every
// object they had when it registered.
func (c *Controller) hasSynced() bool { return c.handlers.HasSynced() }

// onServiceCIDR queues the ServiceCIDR and every ServiceCIDR being deleted
// that it overlaps: a covering ServiceCIDR that comes, goes, or changes
// readiness may block or release them.
func (c *Controller) onServiceCIDR(obj interface{}, gone bool) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	cidr, ok := obj.(*networkingv1.ServiceCIDR)
	if !ok {
		return
	}
	ranges := usableRanges(cidr)

	c.mu.Lock()
	if !gone && servicecidrutil.IsDeleting(cidr) {
		c.deleting[cidr.Name] = ranges
	} else {
		delete(c.deleting, cidr.Name)
	}
	if gone {
		delete(c.blockedReported, cidr.Name)
	}
	var affected []string
	for name, deletingRanges := range c.deleting {
		if name != cidr.Name && anyOverlap(ranges, deletingRanges) {
			affected = append(affected, name)
		}
	}
	c.mu.Unlock()

	c.queue.Add(cidr.Name)
	for _, name := range affected {
		c.queue.Add(name)
	}
}

// onIPAddress keeps the address set and queues the ServiceCIDRs being deleted
// that hold the address: it may block or release them.
func (c *Controller) onIPAddress(obj interface{}, present bool) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	ip, ok := obj.(*networkingv1.IPAddress)
	if !ok {
		return
	}
	addr, err := netip.ParseAddr(ip.Name)
	if err != nil {
		return // the API validates the name; nothing to index otherwise
	}
	if present {
		c.addresses.insert(addr)
	} else {
		c.addresses.delete(addr)
	}

	c.mu.Lock()
	var affected []string
	for name, ranges := range c.deleting {
		for _, r := range ranges {
			if r.contains(addr) {
				affected = append(affected, name)
				break
			}
		}
	}
	c.mu.Unlock()
	for _, name := range affected {
		c.queue.Add(name)
	}
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

func (c *Controller) processNext(ctx context.Context) bool {
	return servicecidrutil.ProcessNext(ctx, c.queue, maxRetries, c.sync)
}

// usableRanges are the usable ranges of cidr's valid CIDRs.
func usableRanges(cidr *networkingv1.ServiceCIDR) []addrRange {
	var ranges []addrRange
	for _, s := range cidr.Spec.CIDRs {
		prefix, err := netip.ParsePrefix(s)
		if err != nil {
			continue // the API validates CIDRs; a bad one covers nothing
		}
		if r, ok := usable(prefix); ok {
			ranges = append(ranges, r)
		}
	}
	return ranges
}

// firstBlockedReport records that cidr's blocked deletion is reported and
// tells whether it had not been before.
func (c *Controller) firstBlockedReport(cidr *networkingv1.ServiceCIDR) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if uid, ok := c.blockedReported[cidr.Name]; ok && uid == cidr.UID {
		return false
	}
	c.blockedReported[cidr.Name] = cidr.UID
	return true
}

func anyOverlap(a, b []addrRange) bool {
	for _, x := range a {
		for _, y := range b {
			if x.overlaps(y) {
				return true
			}
		}
	}
	return false
}
