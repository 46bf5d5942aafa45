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
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// sync makes the slices of the bridge key copies of its Service's slices, or
// deletes them when it is not a bridge (any more). Slices with no owner whose
// bridge does not exist yet are kubectl-servicecidr's, written ahead of the
// bridge so it has endpoints from its first moment: they are left for it.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	svc, err := c.services.Services(namespace).Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	var want []*discoveryv1.EndpointSlice
	if IsBridge(svc) {
		sources, err := c.slices.EndpointSlices(namespace).List(labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: svc.Labels[BridgeLabel]}))
		if err != nil {
			return err
		}
		want = Mirror(namespace, name, metav1.NewControllerRef(svc, corev1.SchemeGroupVersion.WithKind("Service")), svc.Labels[BridgeLabel], sources)
	}
	have, err := c.slices.EndpointSlices(namespace).List(Selector(name))
	if err != nil {
		return err
	}
	byName := make(map[string]*discoveryv1.EndpointSlice, len(have))
	for _, s := range have {
		byName[s.Name] = s
	}
	var errs []error
	for _, w := range want {
		errs = append(errs, c.write(ctx, byName[w.Name], w))
		delete(byName, w.Name)
	}
	for _, s := range byName {
		if svc == nil && len(s.OwnerReferences) == 0 {
			continue
		}
		errs = append(errs, c.remove(ctx, s))
	}
	return errors.Join(errs...)
}

// Selector selects the slices this controller keeps for the bridge name.
func Selector(bridge string) labels.Selector {
	return labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: bridge, discoveryv1.LabelManagedBy: ManagedBy})
}

// write creates want, or updates have to it when they differ; labels others
// put on have are kept.
func (c *Controller) write(ctx context.Context, have, want *discoveryv1.EndpointSlice) error {
	slices := c.client.DiscoveryV1().EndpointSlices(want.Namespace)
	if have == nil {
		if _, err := slices.Create(ctx, want, metav1.CreateOptions{FieldManager: ControllerName}); err != nil {
			return fmt.Errorf("creating EndpointSlice %s/%s: %w", want.Namespace, want.Name, err)
		}
		klog.FromContext(ctx).V(2).Info("Created the EndpointSlice of a bridge", "endpointSlice", klog.KObj(want), "endpoints", len(want.Endpoints))
		return nil
	}
	if upToDate(have, want) {
		return nil
	}
	if have.AddressType != want.AddressType {
		// immutable: its source was made again with another type
		if err := c.remove(ctx, have); err != nil {
			return err
		}
		return c.write(ctx, nil, want)
	}
	u := have.DeepCopy()
	for k, v := range want.Labels {
		if u.Labels == nil {
			u.Labels = map[string]string{}
		}
		u.Labels[k] = v
	}
	u.OwnerReferences, u.Endpoints, u.Ports = want.OwnerReferences, want.Endpoints, want.Ports
	if _, err := slices.Update(ctx, u, metav1.UpdateOptions{FieldManager: ControllerName}); err != nil {
		return fmt.Errorf("updating EndpointSlice %s/%s: %w", u.Namespace, u.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Updated the EndpointSlice of a bridge", "endpointSlice", klog.KObj(u), "endpoints", len(u.Endpoints))
	return nil
}

func upToDate(have, want *discoveryv1.EndpointSlice) bool {
	for k, v := range want.Labels {
		if have.Labels[k] != v {
			return false
		}
	}
	return have.AddressType == want.AddressType &&
		equality.Semantic.DeepEqual(have.OwnerReferences, want.OwnerReferences) &&
		equality.Semantic.DeepEqual(have.Endpoints, want.Endpoints) &&
		equality.Semantic.DeepEqual(have.Ports, want.Ports)
}

// remove deletes a slice of a bridge that is gone, or that its Service no longer has.
func (c *Controller) remove(ctx context.Context, s *discoveryv1.EndpointSlice) error {
	err := c.client.DiscoveryV1().EndpointSlices(s.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting EndpointSlice %s/%s: %w", s.Namespace, s.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Deleted the EndpointSlice of a bridge", "endpointSlice", klog.KObj(s))
	return nil
}
