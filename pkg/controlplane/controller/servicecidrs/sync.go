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
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/netfork/netfork/pkg/controlplane/controller/internal/servicecidrutil"
)

const (
	// readyMessage is upstream's, so the condition does not flap where
	// kube-controller-manager's controller runs too.
	readyMessage = "Kubernetes Service CIDR is ready"

	// ReasonDeletionBlocked is the Warning event of a ServiceCIDR whose
	// deletion waits for IPAddresses that no other ServiceCIDR covers.
	ReasonDeletionBlocked = "DeletionBlocked"
	// ReasonStatusError is upstream's event reason for a Ready condition that could not be written.
	ReasonStatusError = "KubernetesServiceCIDRError"
)

// sync brings one ServiceCIDR's finalizer and Ready condition to what its
// state and the IPAddresses in it call for.
func (c *Controller) sync(ctx context.Context, name string) error {
	cidr, err := c.cidrLister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !servicecidrutil.IsDeleting(cidr) {
		return c.protect(ctx, cidr)
	}
	if !slices.Contains(cidr.Finalizers, Finalizer) {
		return nil // released already; other finalizers are not ours
	}

	if blocker, blocked := c.blockingAddress(cidr); blocked {
		return c.markTerminating(ctx, cidr, blocker)
	}
	if wait := c.gracePeriod - c.clock.Since(cidr.DeletionTimestamp.Time); wait > 0 {
		klog.FromContext(ctx).V(2).Info("ServiceCIDR being deleted holds no IPAddress of its own; releasing it after the grace period",
			"serviceCIDR", name, "wait", wait)
		c.queue.AddAfter(name, wait)
		return nil
	}
	return c.release(ctx, cidr)
}

// protect makes sure a live ServiceCIDR carries the finalizer and says it is ready.
func (c *Controller) protect(ctx context.Context, cidr *networkingv1.ServiceCIDR) error {
	if !slices.Contains(cidr.Finalizers, Finalizer) {
		if err := c.patchFinalizers(ctx, cidr, append(slices.Clone(cidr.Finalizers), Finalizer)); err != nil {
			return fmt.Errorf("adding finalizer %s to ServiceCIDR %s: %w", Finalizer, cidr.Name, err)
		}
	}
	if servicecidrutil.ReadyUpToDate(cidr, metav1.ConditionTrue, "", readyMessage) {
		return nil
	}
	if err := c.applyReady(ctx, cidr, metav1.ConditionTrue, "", readyMessage); err != nil {
		c.recorder.Eventf(cidr, nil, corev1.EventTypeWarning, ReasonStatusError, "UpdateStatus",
			"The ServiceCIDR Status can not be set to Ready=True: %v", err)
		return fmt.Errorf("setting ServiceCIDR %s Ready: %w", cidr.Name, err)
	}
	return nil
}

// blockingAddress returns the lowest IPAddress inside cidr that no other
// ready ServiceCIDR, not being deleted itself, covers. Cost: one pass over
// the ServiceCIDRs, then one O(log n) look-up in the address set per stretch
// of cidr that they leave uncovered.
func (c *Controller) blockingAddress(cidr *networkingv1.ServiceCIDR) (netip.Addr, bool) {
	covers := c.coveringRanges(cidr.Name)
	for _, r := range usableRanges(cidr) {
		for _, gap := range uncovered(r, covers) {
			if a, ok := c.addresses.firstIn(gap); ok {
				return a, true
			}
		}
	}
	return netip.Addr{}, false
}

// coveringRanges are the usable ranges of every ServiceCIDR but name that
// allocators may use: ready and not being deleted.
func (c *Controller) coveringRanges(name string) []addrRange {
	all, err := c.cidrLister.List(labels.Everything())
	if err != nil {
		return nil // a lister never fails; covering nothing keeps the finalizer
	}
	var covers []addrRange
	for _, other := range all {
		if other.Name != name && !servicecidrutil.IsDeleting(other) && servicecidrutil.IsReady(other) {
			covers = append(covers, usableRanges(other)...)
		}
	}
	return covers
}

// markTerminating says why the ServiceCIDR stays, naming one address that holds it.
func (c *Controller) markTerminating(ctx context.Context, cidr *networkingv1.ServiceCIDR, blocker netip.Addr) error {
	message := fmt.Sprintf("IPAddress %s and possibly others are inside this ServiceCIDR and no other ready ServiceCIDR covers them; "+
		"delete the Services that use them or create a ServiceCIDR that covers them", blocker)
	if servicecidrutil.ReadyUpToDate(cidr, metav1.ConditionFalse, networkingv1.ServiceCIDRReasonTerminating, message) {
		return nil
	}
	if err := c.applyReady(ctx, cidr, metav1.ConditionFalse, networkingv1.ServiceCIDRReasonTerminating, message); err != nil {
		return fmt.Errorf("setting ServiceCIDR %s Ready=False: %w", cidr.Name, err)
	}
	klog.FromContext(ctx).Info("ServiceCIDR deletion blocked", "serviceCIDR", cidr.Name, "ipAddress", blocker)
	if c.firstBlockedReport(cidr) {
		c.recorder.Eventf(cidr, nil, corev1.EventTypeWarning, ReasonDeletionBlocked, "Delete", "%s", message)
	}
	return nil
}

// release removes the finalizer: nothing inside the ServiceCIDR depends on it.
func (c *Controller) release(ctx context.Context, cidr *networkingv1.ServiceCIDR) error {
	rest := slices.DeleteFunc(slices.Clone(cidr.Finalizers), func(f string) bool { return f == Finalizer })
	if err := c.patchFinalizers(ctx, cidr, rest); err != nil {
		return fmt.Errorf("removing finalizer %s from ServiceCIDR %s: %w", Finalizer, cidr.Name, err)
	}
	klog.FromContext(ctx).Info("Released ServiceCIDR: no IPAddress depends on it", "serviceCIDR", cidr.Name, "cidrs", cidr.Spec.CIDRs)
	return nil
}

// patchFinalizers sets the finalizers the controller computed from the
// version it read; the resourceVersion precondition makes a concurrent change
// a conflict, retried from the informer's newer copy, rather than a lost finalizer.
func (c *Controller) patchFinalizers(ctx context.Context, cidr *networkingv1.ServiceCIDR, finalizers []string) error {
	patch, err := json.Marshal(map[string]interface{}{
		"metadata": map[string]interface{}{
			"resourceVersion": cidr.ResourceVersion,
			"finalizers":      finalizers,
		},
	})
	if err != nil {
		return err
	}
	_, err = c.client.NetworkingV1().ServiceCIDRs().Patch(ctx, cidr.Name, types.MergePatchType, patch,
		metav1.PatchOptions{FieldManager: controllerName})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func (c *Controller) applyReady(ctx context.Context, cidr *networkingv1.ServiceCIDR, status metav1.ConditionStatus, reason, message string) error {
	apply := servicecidrutil.ReadyApplyConfiguration(cidr, status, reason, message, metav1.NewTime(c.clock.Now()))
	_, err := c.client.NetworkingV1().ServiceCIDRs().ApplyStatus(ctx, apply, metav1.ApplyOptions{FieldManager: controllerName, Force: true})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
