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

package servicecidrusage

import (
	"context"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	metav1apply "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1apply "k8s.io/client-go/applyconfigurations/networking/v1"
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
	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
)

const (
	// FieldManager applies the condition and reports its events; it is not
	// upstream's "service-cidr-controller", whose applies of Ready alone would
	// otherwise drop the condition.
	FieldManager = "netfork-servicecidr-usage"

	// countDelay lets the allocator's index take an IPAddress event in before
	// the counts are read, and folds a burst of creates into one look.
	countDelay = time.Second
	// resyncPeriod looks at every ServiceCIDR again, for counts that moved
	// without an IPAddress event (a reservation dropped before its object was written).
	resyncPeriod = time.Minute
	maxRetries   = 15
)

// Controller keeps ConditionType on every ServiceCIDR that is not being deleted.
type Controller struct {
	client   kubernetes.Interface
	lister   networkingv1listers.ServiceCIDRLister
	usage    ipallocator.UsageReader
	queue    workqueue.TypedRateLimitingInterface[string]
	recorder events.EventRecorder
	clock    clock.WithTicker
	handlers handlers.Set
}

// Option changes a Controller built by New.
type Option func(*Controller)

// WithClock replaces the real clock.
func WithClock(clk clock.WithTicker) Option { return func(c *Controller) { c.clock = clk } }

// WithRecorder replaces the events/v1 recorder Run would create.
func WithRecorder(r events.EventRecorder) Option { return func(c *Controller) { c.recorder = r } }

// New returns a controller fed by the ServiceCIDR informer and ipAddresses
// (the apiserver's IPAddress index or an informer; it reads their names) that
// reads counts from usage. Its handlers stay registered until Run returns:
// build one per Run.
func New(client kubernetes.Interface, cidrInformer networkingv1informers.ServiceCIDRInformer,
	ipAddresses servicecidrutil.EventSource, usage ipallocator.UsageReader, opts ...Option) (*Controller, error) {
	c := &Controller{client: client, lister: cidrInformer.Lister(), usage: usage, clock: clock.RealClock{}}
	for _, opt := range opts {
		opt(c)
	}
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "service_cidr_usage", Clock: c.clock},
	)
	for _, h := range []struct {
		informer servicecidrutil.EventSource
		handler  cache.ResourceEventHandler
	}{
		{cidrInformer.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc:    c.onServiceCIDR,
			UpdateFunc: func(_, obj any) { c.onServiceCIDR(obj) },
		}},
		{ipAddresses, cache.ResourceEventHandlerFuncs{
			AddFunc:    c.onIPAddress,
			DeleteFunc: c.onIPAddress,
		}},
	} {
		if err := c.handlers.Add(h.informer, h.handler); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Run syncs until ctx ends, then unregisters the controller from its informers.
func (c *Controller) Run(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx).WithName(FieldManager)
	ctx = klog.NewContext(ctx, logger)
	if c.recorder == nil {
		c.recorder = servicecidrutil.StartRecorder(ctx, c.client, FieldManager)
	}
	logger.Info("Starting", "setPercent", SetPercent, "clearPercent", ClearPercent)
	defer logger.Info("Shutting down")
	c.handlers.Run(ctx, c.queue.ShutDown,
		func(ctx context.Context) { wait.UntilWithContext(ctx, c.worker, time.Second) },
		func(ctx context.Context) { wait.UntilWithContext(ctx, c.queueAll, resyncPeriod) })
}

func (c *Controller) onServiceCIDR(obj any) {
	if cidr, ok := obj.(*networkingv1.ServiceCIDR); ok {
		c.queue.Add(cidr.Name)
	}
}

// onIPAddress queues, after countDelay, the ServiceCIDRs that hold the address.
func (c *Controller) onIPAddress(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	ip, ok := obj.(*networkingv1.IPAddress)
	if !ok {
		return
	}
	addr, err := netip.ParseAddr(ip.Name)
	if err != nil {
		return
	}
	cidrs, _ := c.lister.List(labels.Everything())
	for _, cidr := range cidrs {
		for _, s := range cidr.Spec.CIDRs {
			if p, err := netip.ParsePrefix(s); err == nil && p.Contains(addr) {
				c.queue.AddAfter(cidr.Name, countDelay)
				break
			}
		}
	}
}

func (c *Controller) queueAll(context.Context) {
	cidrs, _ := c.lister.List(labels.Everything())
	for _, cidr := range cidrs {
		c.queue.Add(cidr.Name)
	}
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

func (c *Controller) processNext(ctx context.Context) bool {
	return servicecidrutil.ProcessNext(ctx, c.queue, maxRetries, c.sync)
}

// sync applies the ServiceCIDR's condition when its level changed, with an event.
func (c *Controller) sync(ctx context.Context, name string) error {
	cidr, err := c.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || servicecidrutil.IsDeleting(cidr) {
		return err
	}
	usages := c.usages(cidr)
	if len(usages) == 0 {
		return nil // no CIDR of a family this apiserver allocates
	}
	old := apimeta.FindStatusCondition(cidr.Status.Conditions, ConditionType)
	cur := levelOf(old)
	l, by := worst(cur, usages)
	if l == cur {
		return nil
	}
	status, reason, message := condition(l, by)
	transition := metav1.NewTime(c.clock.Now())
	if old != nil && old.Status == status {
		transition = old.LastTransitionTime
	}
	apply := networkingv1apply.ServiceCIDR(cidr.Name).WithStatus(networkingv1apply.ServiceCIDRStatus().WithConditions(
		metav1apply.Condition().WithType(ConditionType).WithStatus(status).WithReason(reason).WithMessage(message).
			WithObservedGeneration(cidr.Generation).WithLastTransitionTime(transition)))
	_, err = c.client.NetworkingV1().ServiceCIDRs().ApplyStatus(ctx, apply, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	eventType := corev1.EventTypeWarning
	if status == metav1.ConditionFalse {
		eventType = corev1.EventTypeNormal
	}
	c.recorder.Eventf(cidr, nil, eventType, reason, "AllocateClusterIP", "%s", message)
	klog.FromContext(ctx).Info("ServiceCIDR usage changed", "serviceCIDR", name, "condition", ConditionType, "status", status, "reason", reason, "message", message)
	return nil
}

// usages are the counts of cidr's CIDRs that this apiserver's allocators know.
func (c *Controller) usages(cidr *networkingv1.ServiceCIDR) []cidrUsage {
	var out []cidrUsage
	for _, s := range cidr.Spec.CIDRs {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			continue
		}
		if u, ok := c.usage.Usage(p); ok {
			out = append(out, cidrUsage{prefix: p, usage: u})
		}
	}
	return out
}
