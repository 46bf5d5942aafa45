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

package defaultservicecidr

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
)

const (
	v4    = "10.96.0.0/16"
	v6    = "fd00:10:96::/108"
	other = "10.100.0.0/16"
)

func TestReconcile(t *testing.T) {
	tests := []struct {
		name               string
		primary, secondary string
		existing           *networkingv1.ServiceCIDR
		wantCIDRs          []string
		wantReady          bool
		wantEvent          string // the one event's start, "" for none
		wantNoWrites       bool
	}{
		{name: "missing: created from the flags and set ready",
			primary: v4, secondary: v6,
			wantCIDRs: []string{v4, v6}, wantReady: true},
		{name: "missing, single-stack",
			primary:   v6,
			wantCIDRs: []string{v6}, wantReady: true},
		{name: "same CIDRs without a condition: set ready",
			primary: v4, secondary: v6, existing: serviceCIDR(DefaultServiceCIDRName, v4, v6),
			wantCIDRs: []string{v4, v6}, wantReady: true},
		{name: "same CIDRs, Ready=Unknown: set ready",
			primary: v4, existing: withCondition(serviceCIDR(DefaultServiceCIDRName, v4), metav1.ConditionUnknown, "Unknown", ""),
			wantCIDRs: []string{v4}, wantReady: true},
		{name: "same CIDRs, already ready: nothing to write",
			primary: v4, secondary: v6, existing: withCondition(serviceCIDR(DefaultServiceCIDRName, v4, v6), metav1.ConditionTrue, "", readyMessage),
			wantCIDRs: []string{v4, v6}, wantReady: true, wantNoWrites: true},
		{name: "same CIDRs, Ready=False: reported, not overwritten",
			primary: v4, existing: withCondition(serviceCIDR(DefaultServiceCIDRName, v4), metav1.ConditionFalse, "Broken", "someone said so"),
			wantCIDRs: []string{v4}, wantNoWrites: true,
			wantEvent: "Warning KubernetesDefaultServiceCIDRError The default ServiceCIDR [10.96.0.0/16] matches this apiserver's --service-cluster-ip-range but is Ready=False (Broken: someone said so)"},
		{name: "other flags: the first apiserver's object is kept",
			primary: other, existing: withCondition(serviceCIDR(DefaultServiceCIDRName, v4, v6), metav1.ConditionTrue, "", readyMessage),
			wantCIDRs: []string{v4, v6}, wantReady: true, wantNoWrites: true,
			wantEvent: "Warning KubernetesDefaultServiceCIDRError The default ServiceCIDR [10.96.0.0/16 fd00:10:96::/108] does not match this apiserver's --service-cluster-ip-range [10.100.0.0/16]"},
		{name: "single-stack flags, dual-stack object: kept",
			primary: v4, existing: serviceCIDR(DefaultServiceCIDRName, v4, v6),
			wantCIDRs: []string{v4, v6}, wantNoWrites: true,
			wantEvent: "Warning KubernetesDefaultServiceCIDRError The default ServiceCIDR [10.96.0.0/16 fd00:10:96::/108] does not match"},
		{name: "single to dual-stack: the secondary is added",
			primary: v4, secondary: v6, existing: serviceCIDR(DefaultServiceCIDRName, v4),
			wantCIDRs: []string{v4, v6}, wantReady: true},
		{name: "dual-stack flags whose primary is the object's other family: kept",
			primary: v4, secondary: v6, existing: serviceCIDR(DefaultServiceCIDRName, v6),
			wantCIDRs: []string{v6}, wantNoWrites: true,
			wantEvent: "Warning KubernetesDefaultServiceCIDRError The default ServiceCIDR [fd00:10:96::/108] does not match"},
		{name: "dual-stack flags whose primary differs: kept",
			primary: other, secondary: v6, existing: serviceCIDR(DefaultServiceCIDRName, v4),
			wantCIDRs: []string{v4}, wantNoWrites: true,
			wantEvent: "Warning KubernetesDefaultServiceCIDRError The default ServiceCIDR [10.96.0.0/16] does not match"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objects := []runtime.Object{serviceCIDR("not-the-default", other)}
			if tc.existing != nil {
				objects = append(objects, tc.existing)
			}
			f := newFixture(t, tc.primary, tc.secondary, objects...)
			f.start(t)
			if tc.wantReady {
				f.eventually(t, "Ready=True", ready)
			}
			f.syncs(t, 3) // resyncs, each free to write or report again

			got := f.get(t)
			if !slices.Equal(got.Spec.CIDRs, tc.wantCIDRs) {
				t.Errorf("CIDRs = %v, want %v", got.Spec.CIDRs, tc.wantCIDRs)
			}
			if ready(got) != tc.wantReady {
				t.Errorf("ready = %v, want %v; status %+v", ready(got), tc.wantReady, got.Status)
			}
			if w := f.writes(); tc.wantNoWrites && len(w) != 0 {
				t.Errorf("writes = %v, want none", w)
			}
			ev := f.events()
			switch {
			case tc.wantEvent == "" && len(ev) != 0:
				t.Errorf("events = %q, want none", ev)
			case tc.wantEvent != "" && (len(ev) != 1 || !strings.HasPrefix(ev[0], tc.wantEvent)):
				t.Errorf("events = %q, want exactly one starting %q, even after several resyncs", ev, tc.wantEvent)
			}
			if c, err := f.client.NetworkingV1().ServiceCIDRs().Get(context.Background(), "not-the-default", metav1.GetOptions{}); err != nil || len(c.Status.Conditions) != 0 {
				t.Errorf("another ServiceCIDR was touched: %+v, %v", c, err)
			}
		})
	}
}

func TestRecreatesDeletedServiceCIDR(t *testing.T) {
	f := newFixture(t, v4, v6)
	// a resync far away shows the recreation follows the delete event
	f.ctrl.interval = time.Hour
	f.start(t)
	f.eventually(t, "Ready=True", ready)

	if err := f.client.NetworkingV1().ServiceCIDRs().Delete(context.Background(), DefaultServiceCIDRName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.eventually(t, "recreated and Ready=True", func(c *networkingv1.ServiceCIDR) bool {
		return slices.Equal(c.Spec.CIDRs, []string{v4, v6}) && ready(c)
	})
}

func TestLeavesDeletingServiceCIDRAlone(t *testing.T) {
	deleting := serviceCIDR(DefaultServiceCIDRName, v4)
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	deleting.Finalizers = []string{"networking.k8s.io/service-cidr-finalizer"}
	f := newFixture(t, v4, v6, deleting)
	f.start(t)
	f.syncs(t, 3)
	if w := f.writes(); len(w) != 0 {
		t.Errorf("writes = %v, want none while the default ServiceCIDR is being deleted", w)
	}
	if ev := f.events(); len(ev) != 0 {
		t.Errorf("events = %q, want none", ev)
	}
}

func TestStartBlocksUntilCreated(t *testing.T) {
	f := newFixture(t, v4, "")
	var allow atomic.Bool
	f.client.PrependReactor("create", "servicecidrs", func(clienttesting.Action) (bool, runtime.Object, error) {
		if allow.Load() {
			return false, nil, nil
		}
		return true, nil, apierrors.NewInternalError(errors.New("etcd is away"))
	})

	returned := f.startAsync(t)
	select {
	case e := <-f.recorder.Events:
		if want := "Warning KubernetesDefaultServiceCIDRError The default ServiceCIDR [10.96.0.0/16] can not be created: Internal error occurred: etcd is away"; e != want {
			t.Errorf("event = %q, want %q", e, want)
		}
	case <-time.After(waitTimeout):
		t.Fatal("no event for the failed create")
	}
	f.syncs(t, 3) // three more failed creates, each a chance to return wrongly
	select {
	case <-returned:
		t.Fatal("Start returned while the default ServiceCIDR could not be created")
	default:
	}

	allow.Store(true)
	select {
	case <-returned:
	case <-time.After(waitTimeout):
		t.Fatal("Start did not return once the default ServiceCIDR could be created")
	}
	if got := f.get(t); !slices.Equal(got.Spec.CIDRs, []string{v4}) {
		t.Errorf("CIDRs = %v, want [%s]", got.Spec.CIDRs, v4)
	}
}

func TestStartReturnsWhenAnotherApiserverCreatedIt(t *testing.T) {
	f := newFixture(t, other, "")
	// the other apiserver's create lands between this one's look-up and its create
	f.client.PrependReactor("create", "servicecidrs", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewAlreadyExists(networkingv1.Resource("servicecidrs"), DefaultServiceCIDRName)
	})
	f.start(t)
	if ev := f.events(); len(ev) != 0 {
		t.Errorf("events = %q, want none for losing the race", ev)
	}
}

func TestReportsStatusFailure(t *testing.T) {
	f := newFixture(t, v4, "", serviceCIDR(DefaultServiceCIDRName, v4))
	var failures atomic.Int32
	f.client.PrependReactor("patch", "servicecidrs", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "status" && failures.Add(1) <= 2 {
			return true, nil, apierrors.NewForbidden(networkingv1.Resource("servicecidrs"), DefaultServiceCIDRName, errors.New("not yet"))
		}
		return false, nil, nil
	})
	// the object exists, so the apiserver may get ready while the status is retried
	f.start(t)
	f.eventually(t, "Ready=True after the failures", ready)

	ev := f.events()
	if len(ev) != 2 {
		t.Fatalf("events = %q, want one per failed status write", ev)
	}
	for _, e := range ev {
		if !strings.HasPrefix(e, "Warning KubernetesDefaultServiceCIDRError The default ServiceCIDR Status can not be set to Ready=True: ") {
			t.Errorf("event = %q, want the status failure", e)
		}
	}
}
