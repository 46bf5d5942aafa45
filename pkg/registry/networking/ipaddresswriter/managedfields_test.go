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

package ipaddresswriter

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/apis/networking"
)

func allocatorIPAddress(ip, service, group string) *networking.IPAddress {
	return &networking.IPAddress{
		ObjectMeta: metav1.ObjectMeta{
			Name: ip,
			Labels: map[string]string{
				"ipaddress.kubernetes.io/ip-family":  "IPv4",
				"ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io",
			},
		},
		Spec: networking.IPAddressSpec{ParentRef: &networking.ParentReference{Group: group, Resource: "services", Namespace: "default", Name: service}},
	}
}

// withoutTimes is entries with their times dropped, which are the only part allowed to differ.
func withoutTimes(entries []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	out := make([]metav1.ManagedFieldsEntry, len(entries))
	for i, e := range entries {
		if e.Time == nil {
			panic("managed fields entry without a time")
		}
		e.Time = nil
		out[i] = e
	}
	return out
}

func TestCreateFieldsMatchTheFieldManager(t *testing.T) {
	manager, err := newFieldManager(nil)
	if err != nil {
		t.Fatal(err)
	}
	cached := newCreateFields(manager)
	computed := func(obj *networking.IPAddress) []metav1.ManagedFieldsEntry {
		t.Helper()
		out, ok := manager.UpdateNoErrors(&networking.IPAddress{}, obj.DeepCopy(), FieldManager).(*networking.IPAddress)
		if !ok || len(out.ManagedFields) == 0 {
			t.Fatalf("the field manager gave %s no managed fields", obj.Name)
		}
		return withoutTimes(out.ManagedFields)
	}

	for _, obj := range []*networking.IPAddress{
		allocatorIPAddress("10.96.0.10", "web", ""),
		allocatorIPAddress("10.96.0.11", "db", ""),            // same shape: served from the cache
		allocatorIPAddress("10.96.0.12", "web", "example.io"), // parentRef.group set: another shape
		allocatorIPAddress("10.96.0.13", "api", "example.io"),
	} {
		want := computed(obj)
		cached.set(obj)
		if got := withoutTimes(obj.ManagedFields); !reflect.DeepEqual(got, want) {
			t.Errorf("%s (parentRef group %q): managed fields %+v, the field manager's %+v", obj.Name, obj.Spec.ParentRef.Group, got, want)
		}
		if obj.ManagedFields[0].Manager != FieldManager || obj.ManagedFields[0].Operation != metav1.ManagedFieldsOperationUpdate {
			t.Errorf("%s: managed by %q with %s, want %q with Update", obj.Name, obj.ManagedFields[0].Manager, obj.ManagedFields[0].Operation, FieldManager)
		}
	}
	if got := len(cached.byShape); got != 2 {
		t.Errorf("cached %d shapes, want 2", got)
	}

	// An object of another form (here with an annotation) is never taken from the cache.
	annotated := allocatorIPAddress("10.96.0.14", "web", "")
	annotated.Annotations = map[string]string{"note": "hand-made"}
	want := computed(annotated)
	cached.set(annotated)
	if got := withoutTimes(annotated.ManagedFields); !reflect.DeepEqual(got, want) {
		t.Errorf("annotated: managed fields %+v, the field manager's %+v", got, want)
	}
}
