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

package defaultservicecidr

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	networkingv1informers "k8s.io/client-go/informers/networking/v1"
	"k8s.io/client-go/kubernetes"
	networkingv1listers "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	upstreamdefaultservicecidr "k8s.io/kubernetes/pkg/controlplane/controller/defaultservicecidr"

	"github.com/netfork/netfork/pkg/controlplane/controller/internal/servicecidrutil"
)

const (
	// DefaultServiceCIDRName is the well-known name of the ServiceCIDR built from the flags.
	DefaultServiceCIDRName = upstreamdefaultservicecidr.DefaultServiceCIDRName

	// ReasonError is the KEP's event reason for every failure and mismatch.
	ReasonError = "KubernetesDefaultServiceCIDRError"

	// controllerName is upstream's, as field manager and event reporter, so
	// managedFields read the same whichever kind of apiserver wrote them.
	controllerName = "kubernetes-service-cidr-controller"
	// readyMessage is upstream's message for the Ready condition it sets.
	readyMessage = "Kubernetes default Service CIDR is ready"

	// DefaultResyncInterval is how often the object is checked without an
	// event: upstream's interval, the endpoint reconciler's default.
	DefaultResyncInterval = 10 * time.Second
	// informerResync is the informer's own resync; the controller's poll does the work.
	informerResync = 12 * time.Hour
	// retryBase is the first retry after a failed sync; retries double up to the resync interval.
	retryBase = 100 * time.Millisecond
)

// Controller creates the default ServiceCIDR, marks it ready and recreates it.
type Controller struct {
	// cidrs are the flag CIDRs, primary first, as the API prints them.
	cidrs []string

	client   kubernetes.Interface
	informer cache.SharedIndexInformer
	lister   networkingv1listers.ServiceCIDRLister
	queue    workqueue.TypedRateLimitingInterface[string]
	recorder events.EventRecorder
	interval time.Duration

	// synced is closed once the object is known to exist.
	synced     chan struct{}
	syncedOnce sync.Once

	// reported is the state last reported by event, so each is reported once;
	// only the single worker reads and writes it.
	reported string
}

// Option changes a Controller built by New.
type Option func(*Controller)

// WithRecorder replaces the events/v1 recorder Start would create.
func WithRecorder(recorder events.EventRecorder) Option {
	return func(c *Controller) { c.recorder = recorder }
}

// WithResyncInterval replaces DefaultResyncInterval.
func WithResyncInterval(interval time.Duration) Option {
	return func(c *Controller) { c.interval = interval }
}

// New returns a controller for the ServiceCIDR of primary and, if it has an
// IP, secondary. It watches only that object, with an informer of its own, so
// it needs no shared informer to be started before it can make the apiserver ready.
func New(primary, secondary net.IPNet, client kubernetes.Interface, opts ...Option) *Controller {
	c := &Controller{
		cidrs:    []string{primary.String()},
		client:   client,
		interval: DefaultResyncInterval,
		synced:   make(chan struct{}),
	}
	if secondary.IP != nil {
		c.cidrs = append(c.cidrs, secondary.String())
	}
	for _, opt := range opts {
		opt(c)
	}
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](retryBase, c.interval),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "default_service_cidr"},
	)
	c.informer = networkingv1informers.NewFilteredServiceCIDRInformer(client, informerResync, cache.Indexers{},
		func(options *metav1.ListOptions) {
			options.FieldSelector = fields.OneTermEqualSelector("metadata.name", DefaultServiceCIDRName).String()
		})
	c.lister = networkingv1listers.NewServiceCIDRLister(c.informer.GetIndexer())
	_, _ = c.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueObject,
		UpdateFunc: func(_, obj interface{}) { c.enqueueObject(obj) },
		DeleteFunc: c.enqueueObject,
	})
	return c
}

// Start runs the controller until ctx ends and returns once the default
// ServiceCIDR exists (or ctx ends first): the apiserver's post-start hook
// blocks on it, as upstream's does.
func (c *Controller) Start(ctx context.Context) {
	logger := klog.FromContext(ctx).WithName(controllerName)
	ctx = klog.NewContext(ctx, logger)
	if c.recorder == nil {
		c.recorder = servicecidrutil.StartRecorder(ctx, c.client, controllerName)
	}
	logger.Info("Starting", "cidrs", c.cidrs)
	context.AfterFunc(ctx, func() {
		logger.Info("Shutting down")
		c.queue.ShutDown()
	})

	go c.informer.RunWithContext(ctx)
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.informer.HasSynced) {
		return
	}
	go wait.UntilWithContext(ctx, c.worker, time.Second)
	go wait.UntilWithContext(ctx, func(context.Context) { c.queue.Add(DefaultServiceCIDRName) }, c.interval)

	select {
	case <-c.synced:
	case <-ctx.Done():
	}
}

func (c *Controller) enqueueObject(obj interface{}) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err == nil && key == DefaultServiceCIDRName {
		c.queue.Add(key)
	}
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

func (c *Controller) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)

	if err := c.sync(ctx); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Syncing the default ServiceCIDR, will retry", "cidrs", c.cidrs)
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

// exists records that the default ServiceCIDR exists, which is all the
// apiserver's readiness waits for; its status may still be retried.
func (c *Controller) exists() {
	c.syncedOnce.Do(func() { close(c.synced) })
}

// sync brings the default ServiceCIDR to what the flags say, within the KEP's
// rule that the first apiserver wins.
func (c *Controller) sync(ctx context.Context) error {
	cidr, err := c.lister.Get(DefaultServiceCIDRName)
	switch {
	case apierrors.IsNotFound(err):
		return c.create(ctx)
	case err != nil:
		return err
	}
	c.exists()
	switch {
	case servicecidrutil.IsDeleting(cidr):
		// the deletion controller decides when it goes; it is recreated once gone
		klog.FromContext(ctx).V(2).Info("The default ServiceCIDR is being deleted; recreating it once it is gone", "cidrs", cidr.Spec.CIDRs)
		return nil
	case slices.Equal(cidr.Spec.CIDRs, c.cidrs):
		return c.ensureReady(ctx, cidr)
	case c.addsSecondary(cidr):
		return c.addSecondary(ctx, cidr)
	default:
		c.reportMismatch(ctx, cidr)
		return nil
	}
}

func (c *Controller) create(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	cidr := &networkingv1.ServiceCIDR{
		ObjectMeta: metav1.ObjectMeta{Name: DefaultServiceCIDRName},
		Spec:       networkingv1.ServiceCIDRSpec{CIDRs: slices.Clone(c.cidrs)},
	}
	created, err := c.client.NetworkingV1().ServiceCIDRs().Create(ctx, cidr, metav1.CreateOptions{FieldManager: controllerName})
	if apierrors.IsAlreadyExists(err) {
		// another apiserver was first; its object arrives through the informer
		logger.V(2).Info("The default ServiceCIDR was created by another apiserver")
		c.exists()
		return nil
	}
	if err != nil {
		c.recorder.Eventf(cidr, nil, corev1.EventTypeWarning, ReasonError, "Create",
			"The default ServiceCIDR %v can not be created: %v", c.cidrs, err)
		return fmt.Errorf("creating the default ServiceCIDR %v: %w", c.cidrs, err)
	}
	logger.Info("Created the default ServiceCIDR", "cidrs", c.cidrs)
	c.exists()
	return c.ensureReady(ctx, created)
}

// ensureReady sets Ready=True where nothing has said otherwise yet. A Ready=False
// on an object that matches the flags is someone else's verdict: reported, not overwritten.
func (c *Controller) ensureReady(ctx context.Context, cidr *networkingv1.ServiceCIDR) error {
	condition := servicecidrutil.ReadyCondition(cidr)
	switch {
	case condition == nil || condition.Status == metav1.ConditionUnknown:
		apply := servicecidrutil.ReadyApplyConfiguration(cidr, metav1.ConditionTrue, "", readyMessage, metav1.Now())
		_, err := c.client.NetworkingV1().ServiceCIDRs().ApplyStatus(ctx, apply, metav1.ApplyOptions{FieldManager: controllerName, Force: true})
		if apierrors.IsNotFound(err) {
			return nil // deleted meanwhile; its delete event brings it back
		}
		if err != nil {
			c.recorder.Eventf(cidr, nil, corev1.EventTypeWarning, ReasonError, "UpdateStatus",
				"The default ServiceCIDR Status can not be set to Ready=True: %v", err)
			return fmt.Errorf("setting the default ServiceCIDR %v Ready: %w", cidr.Spec.CIDRs, err)
		}
		klog.FromContext(ctx).Info("Set the default ServiceCIDR Ready", "cidrs", cidr.Spec.CIDRs)
	case condition.Status == metav1.ConditionFalse:
		c.reportOnce(ctx, cidr, "not-ready/"+condition.Reason+"/"+condition.Message,
			"The default ServiceCIDR %v matches this apiserver's --service-cluster-ip-range but is Ready=False (%s: %s); check the cluster's ServiceCIDRs",
			cidr.Spec.CIDRs, condition.Reason, condition.Message)
	}
	return nil
}

// addsSecondary tells whether the flags are the stored single CIDR plus a
// second family, the one change the API allows on a ServiceCIDR.
func (c *Controller) addsSecondary(cidr *networkingv1.ServiceCIDR) bool {
	return len(c.cidrs) == 2 && len(cidr.Spec.CIDRs) == 1 && cidr.Spec.CIDRs[0] == c.cidrs[0]
}

func (c *Controller) addSecondary(ctx context.Context, cidr *networkingv1.ServiceCIDR) error {
	update := cidr.DeepCopy()
	update.Spec.CIDRs = slices.Clone(c.cidrs)
	updated, err := c.client.NetworkingV1().ServiceCIDRs().Update(ctx, update, metav1.UpdateOptions{FieldManager: controllerName})
	if apierrors.IsConflict(err) {
		return fmt.Errorf("upgrading the default ServiceCIDR to %v: %w", c.cidrs, err) // stale cache; retried
	}
	if err != nil {
		c.recorder.Eventf(cidr, nil, corev1.EventTypeWarning, ReasonError, "Update",
			"The default ServiceCIDR can not be upgraded from %v to dual-stack %v: %v", cidr.Spec.CIDRs, c.cidrs, err)
		return fmt.Errorf("upgrading the default ServiceCIDR from %v to %v: %w", cidr.Spec.CIDRs, c.cidrs, err)
	}
	klog.FromContext(ctx).Info("Upgraded the default ServiceCIDR to dual-stack", "from", cidr.Spec.CIDRs, "to", c.cidrs)
	return c.ensureReady(ctx, updated)
}

// reportMismatch says, once per object and spec, that another apiserver's
// flags won; the object is left as it is.
func (c *Controller) reportMismatch(ctx context.Context, cidr *networkingv1.ServiceCIDR) {
	c.reportOnce(ctx, cidr, "mismatch",
		"The default ServiceCIDR %v does not match this apiserver's --service-cluster-ip-range %v; it is kept as the first apiserver created it",
		cidr.Spec.CIDRs, c.cidrs)
}

// reportOnce logs and emits a Warning event unless the same state of the same
// object and spec was the last one reported.
func (c *Controller) reportOnce(ctx context.Context, cidr *networkingv1.ServiceCIDR, state, note string, args ...interface{}) {
	key := strings.Join([]string{string(cidr.UID), strings.Join(cidr.Spec.CIDRs, ","), state}, "/")
	if c.reported == key {
		return
	}
	c.reported = key
	message := fmt.Sprintf(note, args...)
	klog.FromContext(ctx).Info(message, "serviceCIDR", klog.KObj(cidr))
	c.recorder.Eventf(cidr, nil, corev1.EventTypeWarning, ReasonError, "Reconcile", "%s", message)
}
