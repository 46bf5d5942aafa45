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

package reconcilers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	discoveryv1client "k8s.io/client-go/kubernetes/typed/discovery/v1"
	"k8s.io/klog/v2"
)

// current is what a reconcile read before it listed the leases; every write
// is conditional on it, so a write based on leases a peer has since removed
// conflicts instead of landing.
type current struct {
	endpoints          *corev1.Endpoints
	primary, secondary *discoveryv1.EndpointSlice
}

// writer reads and writes the kubernetes Service's Endpoints and EndpointSlices.
type writer struct {
	endpoints corev1client.EndpointsGetter
	slices    discoveryv1client.EndpointSlicesGetter
	service   string
	// secondaryName is the secondary-family slice: the one this apiserver's
	// dual-stack shape writes and every other shape deletes.
	secondaryName string
}

func (w writer) read(ctx context.Context) (current, error) {
	var cur current
	var err error
	if cur.primary, err = w.getSlice(ctx, w.service); err != nil {
		return cur, err
	}
	if cur.secondary, err = w.getSlice(ctx, w.secondaryName); err != nil {
		return cur, err
	}
	e, err := w.endpoints.Endpoints(metav1.NamespaceDefault).Get(ctx, w.service, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return cur, fmt.Errorf("reading Endpoints %s: %w", w.service, err)
	default:
		cur.endpoints = e
	}
	return cur, nil
}

func (w writer) getSlice(ctx context.Context, name string) (*discoveryv1.EndpointSlice, error) {
	s, err := w.slices.EndpointSlices(metav1.NamespaceDefault).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading EndpointSlice %s: %w", name, err)
	}
	return s, nil
}

// write makes the slices, then the Endpoints, what the decision asks for.
func (w writer) write(ctx context.Context, cur current, endpoints *corev1.Endpoints, primary, secondary *discoveryv1.EndpointSlice) error {
	if err := w.writeSlice(ctx, cur.primary, primary); err != nil {
		return err
	}
	if secondary != nil {
		if err := w.writeSlice(ctx, cur.secondary, secondary); err != nil {
			return err
		}
	} else if cur.secondary != nil {
		klog.FromContext(ctx).Info("Deleting the secondary-family EndpointSlice of a single-stack kubernetes Service", "endpointSlice", klog.KObj(cur.secondary))
		if err := w.deleteSlice(ctx, cur.secondary); err != nil {
			return err
		}
	}
	return w.writeEndpoints(ctx, cur.endpoints, endpoints)
}

func (w writer) writeSlice(ctx context.Context, cur, want *discoveryv1.EndpointSlice) error {
	client := w.slices.EndpointSlices(metav1.NamespaceDefault)
	if cur != nil && cur.AddressType != want.AddressType {
		// the address type cannot change: replace the slice
		if err := w.deleteSlice(ctx, cur); err != nil {
			return err
		}
		cur = nil
	}
	if cur == nil {
		if _, err := client.Create(ctx, want, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating EndpointSlice %s: %w", want.Name, err)
		}
		return nil
	}
	if apiequality.Semantic.DeepEqual(cur.Endpoints, want.Endpoints) &&
		apiequality.Semantic.DeepEqual(cur.Ports, want.Ports) &&
		apiequality.Semantic.DeepEqual(cur.Labels, want.Labels) {
		return nil
	}
	updated := cur.DeepCopy()
	updated.Labels, updated.Endpoints, updated.Ports = want.Labels, want.Endpoints, want.Ports
	if _, err := client.Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating EndpointSlice %s: %w", want.Name, err)
	}
	return nil
}

func (w writer) deleteSlice(ctx context.Context, cur *discoveryv1.EndpointSlice) error {
	err := w.slices.EndpointSlices(metav1.NamespaceDefault).Delete(ctx, cur.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &cur.UID, ResourceVersion: &cur.ResourceVersion},
	})
	if err != nil {
		return fmt.Errorf("deleting EndpointSlice %s: %w", cur.Name, err)
	}
	return nil
}

func (w writer) writeEndpoints(ctx context.Context, cur, want *corev1.Endpoints) error {
	client := w.endpoints.Endpoints(metav1.NamespaceDefault)
	if cur == nil {
		if _, err := client.Create(ctx, want, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating Endpoints %s: %w", want.Name, err)
		}
		return nil
	}
	if cur.Labels[discoveryv1.LabelSkipMirror] == "true" && apiequality.Semantic.DeepEqual(cur.Subsets, want.Subsets) {
		return nil
	}
	updated := cur.DeepCopy()
	if updated.Labels == nil {
		updated.Labels = map[string]string{}
	}
	updated.Labels[discoveryv1.LabelSkipMirror] = "true"
	updated.Subsets = want.Subsets
	if _, err := client.Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating Endpoints %s: %w", want.Name, err)
	}
	return nil
}

// retryable tells whether err came from a peer's write between this
// reconcile's read and its write; reading again resolves it.
func retryable(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) || apierrors.IsNotFound(err)
}
