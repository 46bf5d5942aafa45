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

package apiserverranges

import (
	"context"
	"encoding/json"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// FieldManager writes the annotation.
const FieldManager = "netfork-service-cluster-ip-range"

// Publish keeps Annotation at value on the identity Lease named id in
// kube-system until ctx ends. It watches that one Lease and patches it only
// when the annotation is missing or different (see needsPatch): once after
// the apiserver starts, and again if the Lease is recreated (after it
// expired and was collected). Upstream's lease controller copies the Lease it last wrote and
// so keeps the annotation; its first renewal after the patch meets a
// conflict, which it logs once and resolves by reading the Lease again.
func Publish(ctx context.Context, client kubernetes.Interface, id, value string) {
	logger := klog.FromContext(ctx).WithValues("lease", klog.KRef(metav1.NamespaceSystem, id), "annotation", Annotation, "value", value)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithNamespace(metav1.NamespaceSystem),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", id).String()
		}))
	leases := factory.Coordination().V1().Leases()
	check := make(chan struct{}, 1)
	poke := func(any) {
		select {
		case check <- struct{}{}:
		default:
		}
	}
	if _, err := leases.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    poke,
		UpdateFunc: func(_, obj any) { poke(obj) },
	}); err != nil {
		logger.Error(err, "Cannot publish the Service ClusterIP ranges")
		return
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()

	initial := wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Steps: 8, Cap: 10 * time.Second}
	backoff := initial
	var patched types.UID
	for {
		select {
		case <-ctx.Done():
			return
		case <-check:
		}
		lease, err := leases.Lister().Leases(metav1.NamespaceSystem).Get(id)
		if err != nil || !needsPatch(lease, value, patched) {
			continue
		}
		if err := annotate(ctx, client, lease, value); err != nil {
			logger.V(2).Info("Publishing the Service ClusterIP ranges failed, will retry", "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff.Step()):
			}
			poke(nil)
			continue
		}
		backoff, patched = initial, lease.UID
		logger.V(2).Info("Published the Service ClusterIP ranges")
	}
}

// needsPatch tells whether lease lacks value. A Lease this publisher already
// annotated is patched again only if the annotation is gone: apiservers on one
// host share one Lease, and two of them with different ranges must not patch
// it back and forth.
func needsPatch(lease *coordinationv1.Lease, value string, patched types.UID) bool {
	got, ok := lease.Annotations[Annotation]
	return got != value && (!ok || lease.UID != patched)
}

// annotate merge-patches the annotation onto lease, touching nothing else.
func annotate(ctx context.Context, client kubernetes.Interface, lease *coordinationv1.Lease, value string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"uid":         lease.UID, // not a later Lease of the same name
		"annotations": map[string]string{Annotation: value},
	}})
	if err != nil {
		return err
	}
	_, err = client.CoordinationV1().Leases(metav1.NamespaceSystem).Patch(ctx, lease.Name, types.MergePatchType, patch,
		metav1.PatchOptions{FieldManager: FieldManager})
	if apierrors.IsNotFound(err) {
		return nil // the informer will show the next one
	}
	return err
}
