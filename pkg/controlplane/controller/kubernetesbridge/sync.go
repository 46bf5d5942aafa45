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
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
)

// sync makes the slices of the bridge name what the `kubernetes` slices say,
// or deletes them when name is not a bridge (any more).
func (c *Controller) sync(ctx context.Context, name string) error {
	svc, err := c.services.Services(metav1.NamespaceDefault).Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	var want []*discoveryv1.EndpointSlice
	if isBridge(svc) {
		if want, err = c.desired(svc); err != nil {
			return err
		}
	}
	have, err := c.slices.EndpointSlices(metav1.NamespaceDefault).List(labels.SelectorFromSet(labels.Set{
		discoveryv1.LabelServiceName: name,
		discoveryv1.LabelManagedBy:   ManagedBy,
	}))
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
		errs = append(errs, c.remove(ctx, s))
	}
	return errors.Join(errs...)
}

// desired is one slice per address type of the `kubernetes` slices, for svc.
// Slices of one type are merged in name order; one whose ports differ from
// the first's is left out (the apiservers write one slice per type).
func (c *Controller) desired(svc *corev1.Service) ([]*discoveryv1.EndpointSlice, error) {
	sources, err := c.slices.EndpointSlices(metav1.NamespaceDefault).List(labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: KubernetesService}))
	if err != nil {
		return nil, err
	}
	sort.Slice(sources, func(i, j int) bool { return sources[i].Name < sources[j].Name })
	owner := metav1.NewControllerRef(svc, corev1.SchemeGroupVersion.WithKind("Service"))
	byType := map[discoveryv1.AddressType]*discoveryv1.EndpointSlice{}
	var out []*discoveryv1.EndpointSlice
	for _, src := range sources {
		if src.Labels[discoveryv1.LabelManagedBy] == ManagedBy {
			continue
		}
		s, ok := byType[src.AddressType]
		if !ok {
			s = &discoveryv1.EndpointSlice{
				ObjectMeta: metav1.ObjectMeta{
					Name:            SliceName(svc.Name, src.AddressType),
					Namespace:       metav1.NamespaceDefault,
					Labels:          map[string]string{discoveryv1.LabelServiceName: svc.Name, discoveryv1.LabelManagedBy: ManagedBy},
					OwnerReferences: []metav1.OwnerReference{*owner},
				},
				AddressType: src.AddressType,
				Endpoints:   []discoveryv1.Endpoint{},
				Ports:       deepCopyPorts(src.Ports),
			}
			byType[src.AddressType] = s
			out = append(out, s)
		} else if !equality.Semantic.DeepEqual(s.Ports, src.Ports) {
			continue
		}
		for i := range src.Endpoints {
			s.Endpoints = append(s.Endpoints, *src.Endpoints[i].DeepCopy())
		}
	}
	return out, nil
}

// SliceName is the name of a bridge's slice of one address type, e.g.
// kubernetes-renumber-bridge-ipv4.
func SliceName(bridge string, t discoveryv1.AddressType) string {
	return bridge + "-" + strings.ToLower(string(t))
}

func deepCopyPorts(ports []discoveryv1.EndpointPort) []discoveryv1.EndpointPort {
	out := make([]discoveryv1.EndpointPort, len(ports))
	for i := range ports {
		ports[i].DeepCopyInto(&out[i])
	}
	return out
}

// write creates want, or updates have to it when they differ; labels others
// put on have are kept.
func (c *Controller) write(ctx context.Context, have, want *discoveryv1.EndpointSlice) error {
	slices := c.client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault)
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
	return equality.Semantic.DeepEqual(have.OwnerReferences, want.OwnerReferences) &&
		equality.Semantic.DeepEqual(have.Endpoints, want.Endpoints) &&
		equality.Semantic.DeepEqual(have.Ports, want.Ports)
}

// remove deletes a slice of a bridge that is gone or has no slice of its type now.
func (c *Controller) remove(ctx context.Context, s *discoveryv1.EndpointSlice) error {
	err := c.client.DiscoveryV1().EndpointSlices(s.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting EndpointSlice %s/%s: %w", s.Namespace, s.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Deleted the EndpointSlice of a bridge", "endpointSlice", klog.KObj(s))
	return nil
}
