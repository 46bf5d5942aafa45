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
	"context"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/warning"
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

// mutatingAdmission is a mutating admission plugin that changes the object with mutate.
type mutatingAdmission struct {
	mutate func(obj *networking.IPAddress)
	calls  int
}

func (m *mutatingAdmission) Handles(admission.Operation) bool { return true }
func (m *mutatingAdmission) Admit(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	m.calls++
	m.mutate(a.GetObject().(*networking.IPAddress))
	return nil
}

// TestMutatingAdmissionManagedFieldsGuard checks the guard the API handler puts
// around mutating admission: managed fields an admission plugin left invalid
// are put back with a warning, valid ones it set are kept, and ones it did not
// touch stay as the field manager made them.
func TestMutatingAdmissionManagedFieldsGuard(t *testing.T) {
	manager, err := newFieldManager(nil)
	if err != nil {
		t.Fatal(err)
	}
	fields := newCreateFields(manager)
	fields.set(allocatorIPAddress("10.96.0.1", "warm", "")) // the shape is cached from here on

	valid := []metav1.ManagedFieldsEntry{{Manager: "webhook", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "networking.k8s.io/v1",
		FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{"f:team":{}}}}`), Time: &metav1.Time{}}}
	for _, tc := range []struct {
		name        string
		mutate      func(obj *networking.IPAddress)
		wantManager string
		wantWarning bool
	}{
		{"untouched", func(*networking.IPAddress) {}, FieldManager, false},
		{"labels only", func(obj *networking.IPAddress) { obj.Labels["team"] = "a" }, FieldManager, false},
		{"replaced by invalid entries", func(obj *networking.IPAddress) {
			obj.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "webhook", Operation: "Bogus", FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{`)}}
		}, FieldManager, true},
		{"raw set invalid in place", func(obj *networking.IPAddress) {
			obj.ManagedFields[0].Manager = ""
			obj.ManagedFields[0].FieldsV1.SetRawString(`not json`)
		}, "", true},
		{"replaced by valid entries", func(obj *networking.IPAddress) { obj.ManagedFields = valid }, "webhook", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plugin := &mutatingAdmission{mutate: tc.mutate}
			w := New(plugin, nil, nil)
			obj := allocatorIPAddress("10.96.0.2", "web", "")
			cached := fields.set(obj)
			if cached == nil {
				t.Fatal("the shape is not cached")
			}
			recorder := &warningRecorder{}
			ctx := warning.WithWarningRecorder(context.Background(), recorder)
			attrs := admission.NewAttributesRecord(obj, nil, ipAddressKind, "", obj.Name, ipAddressResource, "", admission.Create, &metav1.CreateOptions{}, false, w.user)
			if err := w.mutateGuarded(ctx, attrs, obj, cached); err != nil {
				t.Fatal(err)
			}
			if plugin.calls != 1 {
				t.Fatalf("admission ran %d times", plugin.calls)
			}
			if len(obj.ManagedFields) != 1 || obj.ManagedFields[0].Manager != tc.wantManager {
				t.Errorf("managed fields after admission: %+v, want one entry of %q", obj.ManagedFields, tc.wantManager)
			}
			if got := len(recorder.warnings) > 0; got != tc.wantWarning {
				t.Errorf("warnings %q, want one: %v", recorder.warnings, tc.wantWarning)
			}
			if tc.wantWarning && len(recorder.warnings) > 0 && !strings.Contains(recorder.warnings[0], "managedFields was in an invalid state after admission") {
				t.Errorf("warning %q is not the API handler's", recorder.warnings[0])
			}
		})
	}
}

type warningRecorder struct{ warnings []string }

func (r *warningRecorder) AddWarning(_, text string) { r.warnings = append(r.warnings, text) }
