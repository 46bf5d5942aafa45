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

package kubernetesservice

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/netfork/netfork/pkg/controlplane/reconcilers"
)

const (
	// ServiceName is the Service this controller keeps, in the default namespace.
	ServiceName = reconcilers.ServiceName
	// controllerName reports events and names the queue.
	controllerName = "kubernetes-service-controller"
	portName       = "https"

	// ReasonDualStack is the event reason, on the kubernetes Service, for a change to dual-stack.
	ReasonDualStack = "KubernetesServiceDualStack"
	// ReasonSingleStack is the event reason for a change back to single-stack.
	ReasonSingleStack = "KubernetesServiceSingleStack"
	// ReasonUpdateFailed is the Warning event reason for a Service update that failed.
	ReasonUpdateFailed = "KubernetesServiceUpdateFailed"
)

// Config is the controller's part of the apiserver's configuration.
type Config struct {
	// Reconciler writes the endpoints and decides the Service's shape.
	Reconciler reconcilers.Reconciler
	// Interval is how often the endpoints are reconciled and the leases refreshed.
	Interval time.Duration

	// ServiceIP and SecondaryServiceIP are the first addresses of the service
	// ranges; SecondaryServiceIP is nil when they are single-stack.
	ServiceIP          net.IP
	SecondaryServiceIP net.IP
	// ServicePort is the Service's port, PublicServicePort the apiservers' secure port.
	ServicePort       int
	PublicServicePort int
	// KubernetesServiceNodePort makes the Service a NodePort one when not zero.
	KubernetesServiceNodePort int

	// ShutdownDelay is --shutdown-delay-duration: how long the apiserver keeps
	// serving once shutdown starts, and so how long it stays terminating.
	ShutdownDelay time.Duration
}

// Controller keeps the kubernetes Service in the shape the reconciler decided,
// and this apiserver in its endpoints (see the package doc).
type Controller struct {
	Config

	client      kubernetes.Interface
	lister      corev1listers.ServiceLister
	synced      cache.InformerSynced
	queue       workqueue.TypedRateLimitingInterface[string]
	broadcaster events.EventBroadcaster
	recorder    events.EventRecorder

	// decision is the reconciler's last; nil until it first succeeded.
	decision atomic.Pointer[reconcilers.Decision]
	// reconciled is set once the apiserver is ready and has reconciled, successfully
	// or not: its leases may be out, and a peer may publish it from them.
	reconciled atomic.Bool

	stopOnce sync.Once
	stopCh   chan struct{}
	// lock orders starting the goroutines before Stop waits for them.
	lock    sync.Mutex
	stopped bool
	// running is done when the reconcile loop and the worker have returned.
	running sync.WaitGroup
}

// New builds the controller; Start runs it and Stop hands off and removes this apiserver.
func New(cfg Config, client kubernetes.Interface, services corev1informers.ServiceInformer) (*Controller, error) {
	switch {
	case cfg.Reconciler == nil:
		return nil, errors.New("kubernetes Service controller: no endpoint reconciler")
	case cfg.Interval <= 0:
		return nil, fmt.Errorf("kubernetes Service controller: reconcile interval %s is not positive", cfg.Interval)
	case cfg.ServiceIP == nil:
		return nil, errors.New("kubernetes Service controller: no service IP")
	}
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	c := &Controller{
		Config:      cfg,
		client:      client,
		lister:      services.Lister(),
		synced:      services.Informer().HasSynced,
		broadcaster: broadcaster,
		recorder:    broadcaster.NewRecorder(scheme.Scheme, controllerName),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: controllerName}),
		stopCh: make(chan struct{}),
	}
	_, err := services.Informer().AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: isKubernetesService,
		// a deleted Service comes back at once; changes wait for the next decision
		Handler: cache.ResourceEventHandlerFuncs{DeleteFunc: func(any) { c.queue.Add(ServiceName) }},
	})
	if err != nil {
		return nil, fmt.Errorf("kubernetes Service controller: watching Services: %w", err)
	}
	return c, nil
}

func isKubernetesService(obj any) bool {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	svc, ok := obj.(*corev1.Service)
	return ok && svc.Namespace == metav1.NamespaceDefault && svc.Name == ServiceName
}

// Start waits for the Service cache, drops what a previous run of this
// apiserver may have left in the endpoints, and starts reconciling once the
// apiserver is ready. stopCh is the post-start hook's.
func (c *Controller) Start(stopCh <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		select {
		case <-stopCh:
		case <-c.stopCh:
		}
	}()
	logger := klog.FromContext(ctx).WithValues("controller", controllerName)
	ctx = klog.NewContext(ctx, logger)
	if !cache.WaitForCacheSync(ctx.Done(), c.synced) {
		utilruntime.HandleErrorWithContext(ctx, nil, "Timed out waiting for the Service cache")
		return
	}
	// like upstream: stay out of the endpoints until this apiserver is ready
	if _, err := c.Reconciler.Remove(ctx, c.endpointPorts()); err != nil {
		logger.Error(err, "Removing this apiserver's endpoints left from a previous run")
	}
	if err := c.broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		logger.Error(err, "Starting the event recorder")
	}
	c.lock.Lock()
	defer c.lock.Unlock()
	if c.stopped {
		return
	}
	c.running.Add(2)
	go func() {
		defer c.running.Done()
		c.run(ctx)
	}()
	go func() {
		defer c.running.Done()
		for c.processNext(ctx) {
		}
	}()
}

// run waits for /readyz, then reconciles the endpoints and the Service every interval.
func (c *Controller) run(ctx context.Context) {
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		var code int
		c.client.CoreV1().RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&code)
		return code == http.StatusOK, nil
	})
	if err != nil {
		return
	}
	wait.NonSlidingUntilWithContext(ctx, c.reconcileEndpoints, c.Interval)
}

// reconcileEndpoints has the reconciler write the endpoints and decide the
// Service's shape, then moves the Service to it at once. The Service is read
// fresh and updated only here, right after a decision: a decision a peer has
// already acted on differently is never replayed later from a cache, which
// would make two apiservers that saw the leases a moment apart flip the
// Service back and forth.
func (c *Controller) reconcileEndpoints(ctx context.Context) {
	c.reconciled.Store(true)
	d, err := c.Reconciler.Reconcile(ctx, c.endpointPorts())
	if err != nil {
		if !errors.Is(err, reconcilers.ErrStopped) {
			utilruntime.HandleErrorWithContext(ctx, err, "Reconciling the kubernetes Service's endpoints")
		}
		return
	}
	if prev := c.decision.Swap(&d); prev == nil || prev.Shape != d.Shape {
		klog.FromContext(ctx).Info("Endpoint reconciler decided the kubernetes Service's shape", "shape", d.Shape, "apiservers", len(d.Members))
	}
	if err := c.reshapeService(ctx, d); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Reconciling the kubernetes Service")
	}
}

func (c *Controller) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.ensureService(ctx); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Creating the kubernetes Service")
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

// ensureService creates the Service when the cache says it is missing, in the
// shape of the last decision (single-stack, as upstream creates it, before
// the first). It never changes an existing Service.
func (c *Controller) ensureService(ctx context.Context) error {
	_, err := c.lister.Services(metav1.NamespaceDefault).Get(ServiceName)
	if !apierrors.IsNotFound(err) {
		return err
	}
	d := c.decision.Load()
	return c.createService(ctx, d != nil && c.dualStack(*d))
}

func (c *Controller) createService(ctx context.Context, dual bool) error {
	_, err := c.client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, c.newService(dual), metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

func (c *Controller) dualStack(d reconcilers.Decision) bool {
	return d.DualStack() && c.SecondaryServiceIP != nil
}

// reshapeService moves the Service to the shape of d; a conflict means a peer
// wrote it since it was read, and the next decision settles it.
func (c *Controller) reshapeService(ctx context.Context, d reconcilers.Decision) error {
	dual := c.dualStack(d)
	svc, err := c.client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, ServiceName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return c.createService(ctx, dual)
	}
	if err != nil {
		return err
	}
	updated := reshaped(svc, dual, c.SecondaryServiceIP)
	if updated == nil {
		return nil
	}
	reason, note := ReasonSingleStack, "not every live apiserver advertises both IP families"
	if dual {
		reason, note = ReasonDualStack, "every live apiserver advertises both IP families"
	}
	if _, err := c.client.CoreV1().Services(metav1.NamespaceDefault).Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		if apierrors.IsConflict(err) {
			return nil
		}
		c.recorder.Eventf(svc, nil, corev1.EventTypeWarning, ReasonUpdateFailed, "Update",
			"Could not make the kubernetes Service %s: %v", d.Shape, err)
		return fmt.Errorf("updating Service %s to %s: %w", ServiceName, d.Shape, err)
	}
	klog.FromContext(ctx).Info("Updated the kubernetes Service", "shape", d.Shape, "clusterIPs", updated.Spec.ClusterIPs)
	c.recorder.Eventf(svc, nil, corev1.EventTypeNormal, reason, "Update", "Set ClusterIPs %v: %s", updated.Spec.ClusterIPs, note)
	return nil
}

func (c *Controller) endpointPorts() []corev1.EndpointPort {
	return []corev1.EndpointPort{{Name: portName, Port: int32(c.PublicServicePort), Protocol: corev1.ProtocolTCP}}
}
