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

package kubernetesbridge

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	corev1informers "k8s.io/client-go/informers/core/v1"
	discoveryv1informers "k8s.io/client-go/informers/discovery/v1"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	discoveryv1listers "k8s.io/client-go/listers/discovery/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/netfork/netfork/pkg/controlplane/controller/internal/handlers"
)

const (
	// BridgeLabel marks a bridge Service of kubectl-servicecidr; its value is
	// the name of the Service it keeps an old address of.
	BridgeLabel = "servicecidr.netfork.io/bridge-for"
	// KubernetesService is the apiservers' Service, in namespace default.
	KubernetesService = "kubernetes"
	// ManagedBy is the endpointslice.kubernetes.io/managed-by value of the
	// slices this controller writes: not kube-controller-manager's
	// endpointslice-controller.k8s.io nor endpointslicemirroring-controller.k8s.io,
	// so neither touches them.
	ManagedBy = "kubernetes-bridge.netfork.io"
	// ControllerName names the controller in logs and is its field manager.
	ControllerName = "netfork-kubernetes-bridge"

	// maxRetries drops a key after about 80 s of failures; events bring it back.
	maxRetries = 15
)

// Controller keeps the EndpointSlices of every bridge of the `kubernetes` Service.
type Controller struct {
	client   kubernetes.Interface
	services corev1listers.ServiceLister
	slices   discoveryv1listers.EndpointSliceLister
	queue    workqueue.TypedRateLimitingInterface[string]
	handlers handlers.Set
}

// New returns a controller fed by the Service and EndpointSlice informers.
// Its event handlers stay registered until Run returns: build one per Run.
func New(client kubernetes.Interface, services corev1informers.ServiceInformer, slices discoveryv1informers.EndpointSliceInformer) (*Controller, error) {
	c := &Controller{
		client:   client,
		services: services.Lister(),
		slices:   slices.Lister(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "kubernetes_bridge"},
		),
	}
	for _, h := range []struct {
		source handlers.Source
		on     func(any)
	}{
		{services.Informer(), c.onService},
		{slices.Informer(), c.onSlice},
	} {
		err := c.handlers.Add(h.source, cache.ResourceEventHandlerFuncs{
			AddFunc: h.on,
			// both: an object that stops matching must be seen too
			UpdateFunc: func(old, cur any) { h.on(old); h.on(cur) },
			DeleteFunc: h.on,
		})
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Run syncs until ctx ends, then unregisters the controller from its informers.
func (c *Controller) Run(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx).WithName(ControllerName)
	ctx = klog.NewContext(ctx, logger)
	logger.Info("Starting")
	defer logger.Info("Shutting down")
	c.handlers.Run(ctx, c.queue.ShutDown, func(ctx context.Context) { wait.UntilWithContext(ctx, c.worker, time.Second) })
}

func unwrap(obj any) metav1.Object {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	m, _ := obj.(metav1.Object)
	return m
}

// onService queues a Service of namespace default labeled as a bridge of `kubernetes`.
func (c *Controller) onService(obj any) {
	if s := unwrap(obj); s != nil && s.GetNamespace() == metav1.NamespaceDefault && s.GetLabels()[BridgeLabel] == KubernetesService {
		c.queue.Add(s.GetName())
	}
}

// onSlice queues every bridge when a `kubernetes` slice changes, and the
// bridge of a slice of its own that changed.
func (c *Controller) onSlice(obj any) {
	s := unwrap(obj)
	if s == nil || s.GetNamespace() != metav1.NamespaceDefault {
		return
	}
	switch l := s.GetLabels(); {
	case l[discoveryv1.LabelManagedBy] == ManagedBy:
		c.queue.Add(l[discoveryv1.LabelServiceName])
	case l[discoveryv1.LabelServiceName] == KubernetesService:
		bridges, _ := c.services.Services(metav1.NamespaceDefault).List(labels.SelectorFromSet(labels.Set{BridgeLabel: KubernetesService}))
		for _, b := range bridges {
			c.queue.Add(b.Name)
		}
	}
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

// processNext syncs one bridge: forgotten on success, retried rate-limited up
// to maxRetries times, then dropped until its next event.
func (c *Controller) processNext(ctx context.Context) bool {
	name, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(name)
	err := c.sync(ctx, name)
	switch {
	case err == nil:
		c.queue.Forget(name)
	case c.queue.NumRequeues(name) < maxRetries:
		klog.FromContext(ctx).V(2).Info("Syncing the EndpointSlices of a bridge failed, will retry", "service", klog.KRef(metav1.NamespaceDefault, name), "err", err)
		c.queue.AddRateLimited(name)
	default:
		c.queue.Forget(name)
		utilruntime.HandleErrorWithContext(ctx, err, "Syncing the EndpointSlices of a bridge failed; dropped until its next event", "service", klog.KRef(metav1.NamespaceDefault, name))
	}
	return true
}

// isBridge tells whether svc is a bridge of the `kubernetes` Service this
// controller keeps slices for: labeled, selectorless, not being deleted.
func isBridge(svc *corev1.Service) bool {
	return svc != nil && svc.DeletionTimestamp == nil &&
		svc.Labels[BridgeLabel] == KubernetesService && len(svc.Spec.Selector) == 0 &&
		svc.Spec.Type != corev1.ServiceTypeExternalName
}
