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

package servicebridge

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
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
	// the name of the Service, in the same namespace, it keeps an old address of.
	BridgeLabel = "servicecidr.netfork.io/bridge-for"
	// ManagedBy is the endpointslice.kubernetes.io/managed-by value of the
	// slices this controller writes: not kube-controller-manager's
	// endpointslice-controller.k8s.io nor endpointslicemirroring-controller.k8s.io,
	// so neither touches them.
	ManagedBy = "servicecidr-bridge.netfork.io"
	// ControllerName names the controller in logs and is its field manager.
	ControllerName = "netfork-service-bridge"

	// maxRetries drops a key after about 80 s of failures; events bring it back.
	maxRetries = 15
)

// Controller keeps the EndpointSlices of every bridge Service: copies of the
// slices of the Service it bridges.
type Controller struct {
	client   kubernetes.Interface
	services corev1listers.ServiceLister
	slices   discoveryv1listers.EndpointSliceLister
	// queue holds bridges' namespace/name keys.
	queue    workqueue.TypedRateLimitingInterface[string]
	handlers handlers.Set

	mu sync.Mutex
	// bridges maps a bridged Service's key to the names of the Services
	// labeled as its bridges in its namespace, so a slice event finds them
	// without a scan.
	bridges map[string]sets.Set[string]
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
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "service_bridge"},
		),
		bridges: map[string]sets.Set[string]{},
	}
	err := c.handlers.Add(services.Informer(), cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onService(nil, obj) },
		UpdateFunc: c.onService,
		DeleteFunc: func(obj any) { c.onService(obj, nil) },
	})
	if err != nil {
		return nil, err
	}
	err = c.handlers.Add(slices.Informer(), cache.ResourceEventHandlerFuncs{
		AddFunc: c.onSlice,
		// both: a slice that stops matching must be seen too
		UpdateFunc: func(old, cur any) { c.onSlice(old); c.onSlice(cur) },
		DeleteFunc: c.onSlice,
	})
	if err != nil {
		return nil, err
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

// onService follows the labeled Services: old is what was (nil on an add),
// cur what is (nil on a delete). A bridge is queued whenever it changes.
func (c *Controller) onService(old, cur any) {
	o, n := unwrap(old), unwrap(cur)
	c.mu.Lock()
	defer c.mu.Unlock()
	if o != nil && o.GetLabels()[BridgeLabel] != "" {
		key := o.GetNamespace() + "/" + o.GetLabels()[BridgeLabel]
		if names := c.bridges[key]; names != nil {
			names.Delete(o.GetName())
			if names.Len() == 0 {
				delete(c.bridges, key)
			}
		}
		c.queue.Add(o.GetNamespace() + "/" + o.GetName())
	}
	if n != nil && n.GetLabels()[BridgeLabel] != "" {
		key := n.GetNamespace() + "/" + n.GetLabels()[BridgeLabel]
		if c.bridges[key] == nil {
			c.bridges[key] = sets.New[string]()
		}
		c.bridges[key].Insert(n.GetName())
		c.queue.Add(n.GetNamespace() + "/" + n.GetName())
	}
}

// onSlice queues the bridge of a slice of its own that changed, and every
// bridge of the Service whose slice changed.
func (c *Controller) onSlice(obj any) {
	s := unwrap(obj)
	if s == nil {
		return
	}
	l := s.GetLabels()
	name := l[discoveryv1.LabelServiceName]
	if name == "" {
		return
	}
	if l[discoveryv1.LabelManagedBy] == ManagedBy {
		c.queue.Add(s.GetNamespace() + "/" + name)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for b := range c.bridges[s.GetNamespace()+"/"+name] {
		c.queue.Add(s.GetNamespace() + "/" + b)
	}
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

// processNext syncs one bridge: forgotten on success, retried rate-limited up
// to maxRetries times, then dropped until its next event.
func (c *Controller) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	err := c.sync(ctx, key)
	switch {
	case err == nil:
		c.queue.Forget(key)
	case c.queue.NumRequeues(key) < maxRetries:
		klog.FromContext(ctx).V(2).Info("Syncing the EndpointSlices of a bridge failed, will retry", "service", key, "err", err)
		c.queue.AddRateLimited(key)
	default:
		c.queue.Forget(key)
		utilruntime.HandleErrorWithContext(ctx, err, "Syncing the EndpointSlices of a bridge failed; dropped until its next event", "service", key)
	}
	return true
}

// IsBridge tells whether svc is a bridge this controller keeps slices for:
// labeled with another Service's name, selectorless, not ExternalName, not
// being deleted. A bridge with a selector gets kube-controller-manager's
// slices instead.
func IsBridge(svc *corev1.Service) bool {
	return svc != nil && svc.DeletionTimestamp == nil &&
		svc.Labels[BridgeLabel] != "" && svc.Labels[BridgeLabel] != svc.Name &&
		len(svc.Spec.Selector) == 0 && svc.Spec.Type != corev1.ServiceTypeExternalName
}
