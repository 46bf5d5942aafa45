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
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func withReady(status metav1.ConditionStatus, since time.Time) *networkingv1.ServiceCIDR {
	return &networkingv1.ServiceCIDR{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Generation: 3},
		Status: networkingv1.ServiceCIDRStatus{Conditions: []metav1.Condition{{
			Type: networkingv1.ServiceCIDRConditionReady, Status: status, Message: "m", LastTransitionTime: metav1.NewTime(since),
		}}},
	}
}

func TestIsReady(t *testing.T) {
	tests := []struct {
		name string
		cidr *networkingv1.ServiceCIDR
		want bool
	}{
		{name: "no condition: ready, as upstream's allocator assumes", cidr: &networkingv1.ServiceCIDR{}, want: true},
		{name: "Ready=True", cidr: withReady(metav1.ConditionTrue, time.Time{}), want: true},
		{name: "Ready=False", cidr: withReady(metav1.ConditionFalse, time.Time{}), want: false},
		{name: "Ready=Unknown", cidr: withReady(metav1.ConditionUnknown, time.Time{}), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsReady(tc.cidr); got != tc.want {
				t.Errorf("IsReady() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReadyApplyConfigurationTransitionTime(t *testing.T) {
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := metav1.NewTime(since.Add(time.Hour))
	tests := []struct {
		name   string
		cidr   *networkingv1.ServiceCIDR
		status metav1.ConditionStatus
		want   metav1.Time
	}{
		{name: "first condition", cidr: &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, status: metav1.ConditionTrue, want: now},
		{name: "same status, new message: kept", cidr: withReady(metav1.ConditionFalse, since), status: metav1.ConditionFalse, want: metav1.NewTime(since)},
		{name: "status changes: moved", cidr: withReady(metav1.ConditionTrue, since), status: metav1.ConditionFalse, want: now},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			apply := ReadyApplyConfiguration(tc.cidr, tc.status, "R", "new message", now)
			if got := ptr.Deref(apply.Name, ""); got != tc.cidr.Name {
				t.Errorf("name = %q, want %q", got, tc.cidr.Name)
			}
			c := apply.Status.Conditions[0]
			if *c.Type != networkingv1.ServiceCIDRConditionReady || *c.Status != tc.status || *c.Reason != "R" || *c.Message != "new message" {
				t.Errorf("condition = %s %s %s %q", *c.Type, *c.Status, *c.Reason, *c.Message)
			}
			if !c.LastTransitionTime.Equal(&tc.want) {
				t.Errorf("lastTransitionTime = %v, want %v", c.LastTransitionTime, tc.want)
			}
			if *c.ObservedGeneration != tc.cidr.Generation {
				t.Errorf("observedGeneration = %d, want %d", *c.ObservedGeneration, tc.cidr.Generation)
			}
		})
	}
}
