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

package servicecidrutil

import (
	networkingv1 "k8s.io/api/networking/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1apply "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1apply "k8s.io/client-go/applyconfigurations/networking/v1"
)

// ReadyCondition returns the Ready condition of cidr, or nil when it has none.
func ReadyCondition(cidr *networkingv1.ServiceCIDR) *metav1.Condition {
	return apimeta.FindStatusCondition(cidr.Status.Conditions, networkingv1.ServiceCIDRConditionReady)
}

// IsReady tells whether allocators may use cidr: Ready=True, or no Ready
// condition yet, which upstream's allocator also takes as ready so that a
// cluster without the deletion controller keeps working.
func IsReady(cidr *networkingv1.ServiceCIDR) bool {
	c := ReadyCondition(cidr)
	return c == nil || c.Status == metav1.ConditionTrue
}

// IsDeleting tells whether cidr's deletion has started.
func IsDeleting(cidr *networkingv1.ServiceCIDR) bool {
	return !cidr.DeletionTimestamp.IsZero()
}

// ReadyUpToDate tells whether cidr's Ready condition already says status, reason and message.
func ReadyUpToDate(cidr *networkingv1.ServiceCIDR, status metav1.ConditionStatus, reason, message string) bool {
	c := ReadyCondition(cidr)
	return c != nil && c.Status == status && c.Reason == reason && c.Message == message
}

// ReadyApplyConfiguration is the status apply that sets cidr's Ready condition.
// The transition time moves only when the status does, as
// apimeta.SetStatusCondition would move it.
func ReadyApplyConfiguration(cidr *networkingv1.ServiceCIDR, status metav1.ConditionStatus, reason, message string, now metav1.Time) *networkingv1apply.ServiceCIDRApplyConfiguration {
	transition := now
	if c := ReadyCondition(cidr); c != nil && c.Status == status {
		transition = c.LastTransitionTime
	}
	condition := metav1apply.Condition().
		WithType(networkingv1.ServiceCIDRConditionReady).
		WithStatus(status).
		WithReason(reason).
		WithMessage(message).
		WithObservedGeneration(cidr.Generation).
		WithLastTransitionTime(transition)
	return networkingv1apply.ServiceCIDR(cidr.Name).
		WithStatus(networkingv1apply.ServiceCIDRStatus().WithConditions(condition))
}
