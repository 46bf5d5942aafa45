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

package kubernetesservice

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"

	"github.com/netfork/netfork/pkg/controlplane/reconcilers"
)

func updates(tc *testController) int {
	n := 0
	for _, a := range tc.client.Actions() {
		if a.GetResource().Resource == "services" && (a.GetVerb() == "update" || a.GetVerb() == "create") {
			n++
		}
	}
	return n
}

// TestReconcileMovesTheService walks the Service through the shapes the
// reconciler decides and checks that nothing is written without a change.
func TestReconcileMovesTheService(t *testing.T) {
	ctx := context.Background()
	tc := newTestController(t, Config{SecondaryServiceIP: secondaryServiceIP})

	// before any decision: created single-stack, as upstream creates it
	if err := tc.ensureService(ctx); err != nil {
		t.Fatalf("ensureService: %v", err)
	}
	if svc := tc.service(t); *svc.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
		t.Fatalf("created with %s, want SingleStack before any decision", *svc.Spec.IPFamilyPolicy)
	}

	steps := []struct {
		shape    reconcilers.Shape
		wantIPs  []string
		wantPol  corev1.IPFamilyPolicy
		wantWrit bool
	}{
		{reconcilers.ShapeDualStack, []string{"10.96.0.1", "fd00:10:96::1"}, corev1.IPFamilyPolicyRequireDualStack, true},
		{reconcilers.ShapeDualStack, []string{"10.96.0.1", "fd00:10:96::1"}, corev1.IPFamilyPolicyRequireDualStack, false},
		{reconcilers.ShapeUpstream, []string{"10.96.0.1"}, corev1.IPFamilyPolicySingleStack, true},
		{reconcilers.ShapeSingleStack, []string{"10.96.0.1"}, corev1.IPFamilyPolicySingleStack, false},
		{reconcilers.ShapeUpstream, []string{"10.96.0.1"}, corev1.IPFamilyPolicySingleStack, false},
	}
	for i, step := range steps {
		before := updates(tc)
		tc.decide(t, step.shape)
		svc := tc.service(t)
		if *svc.Spec.IPFamilyPolicy != step.wantPol || !reflect.DeepEqual(svc.Spec.ClusterIPs, step.wantIPs) {
			t.Errorf("step %d (%s): Service %s %v, want %s %v", i, step.shape, *svc.Spec.IPFamilyPolicy, svc.Spec.ClusterIPs, step.wantPol, step.wantIPs)
		}
		if wrote := updates(tc) > before; wrote != step.wantWrit {
			t.Errorf("step %d (%s): wrote the Service = %t, want %t", i, step.shape, wrote, step.wantWrit)
		}
	}
}

// TestEnsureServiceNeverChangesExisting: the informer-driven path only
// recreates a deleted Service; replaying a decision from it would let an
// apiserver with a stale decision flip the Service a peer just changed.
func TestEnsureServiceNeverChangesExisting(t *testing.T) {
	ctx := context.Background()
	tc := newTestController(t, Config{SecondaryServiceIP: secondaryServiceIP}, dualStackService())
	tc.service(t)
	tc.decision.Store(&reconcilers.Decision{Shape: reconcilers.ShapeUpstream})
	if err := tc.ensureService(ctx); err != nil {
		t.Fatal(err)
	}
	if n := updates(tc); n != 0 {
		t.Errorf("%d Service writes from ensureService, want none", n)
	}

	// deleted: it comes back in the last decision's shape
	tc.decision.Store(&reconcilers.Decision{Shape: reconcilers.ShapeDualStack})
	if err := tc.client.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, ServiceName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if !tc.processNextAfterDelete(t) {
		t.Fatal("the queue was shut down")
	}
	if svc := tc.service(t); *svc.Spec.IPFamilyPolicy != corev1.IPFamilyPolicyRequireDualStack {
		t.Errorf("recreated %s, want RequireDualStack as last decided", *svc.Spec.IPFamilyPolicy)
	}
}

// TestReconcileSingleStackRanges: a dual decision cannot make the Service
// dual-stack on an apiserver whose service ranges are single-stack.
func TestReconcileSingleStackRanges(t *testing.T) {
	tc := newTestController(t, Config{})
	tc.decide(t, reconcilers.ShapeDualStack)
	if svc := tc.service(t); len(svc.Spec.ClusterIPs) != 1 {
		t.Errorf("ClusterIPs %v, want one", svc.Spec.ClusterIPs)
	}
}

// TestReconcileServiceUpdateFailure: a rejected update (e.g. the secondary
// address is taken) is reported as a Warning event; a conflict, a peer's write,
// is not an error.
func TestReconcileServiceUpdateFailure(t *testing.T) {
	for name, updateErr := range map[string]error{
		"rejected": errors.New("fd00:10:96::1 is already allocated"),
		"conflict": apierrors.NewConflict(schema.GroupResource{Resource: "services"}, ServiceName, errors.New("modified")),
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			single := dualStackService()
			single.Spec.ClusterIPs, single.Spec.IPFamilies = single.Spec.ClusterIPs[:1], single.Spec.IPFamilies[:1]
			single.Spec.IPFamilyPolicy = ptrPolicy(corev1.IPFamilyPolicySingleStack)
			tc := newTestController(t, Config{SecondaryServiceIP: secondaryServiceIP}, single)
			if err := tc.broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
				t.Fatal(err)
			}
			// The controller records its events in the call that fails: a recorder
			// beside the API's shows, once reshapeService returned, every event it made.
			made := events.NewFakeRecorder(10)
			tc.recorder = teeRecorder{EventRecorder: tc.recorder, also: made}
			tc.client.PrependReactor("update", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, updateErr
			})
			if err := tc.reshapeService(ctx, reconcilers.Decision{Shape: reconcilers.ShapeDualStack}); (err != nil) != (name == "rejected") {
				t.Fatalf("reshapeService = %v", err)
			}
			close(made.Events)
			var recorded []string
			for e := range made.Events {
				recorded = append(recorded, e)
			}
			if name == "conflict" {
				if len(recorded) != 0 {
					t.Errorf("events %q for a conflict, want none", recorded)
				}
				return
			}
			if len(recorded) != 1 {
				t.Fatalf("events %q, want one Warning %s", recorded, ReasonUpdateFailed)
			}
			var list *eventsv1.EventList
			err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
				var err error
				list, err = tc.client.EventsV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
				return err == nil && len(list.Items) > 0, nil
			})
			if err != nil {
				t.Fatalf("the event %q did not reach the API: %v", recorded[0], err)
			}
			if len(list.Items) != 1 || list.Items[0].Reason != ReasonUpdateFailed || list.Items[0].Type != corev1.EventTypeWarning {
				t.Errorf("events %+v, want one Warning %s", list.Items, ReasonUpdateFailed)
			}
		})
	}
}

// TestStopHandsOff is the shutdown order of KEP-1669's hand-off: terminating
// for the whole shutdown delay, refreshed every interval, then stopped and
// removed, then destroyed.
func TestStopHandsOff(t *testing.T) {
	const interval, delay = 50 * time.Millisecond, 300 * time.Millisecond
	tc := newTestController(t, Config{Interval: interval, ShutdownDelay: delay})
	tc.decide(t, reconcilers.ShapeDualStack)
	start := time.Now()
	tc.Stop()

	names := tc.rec.callNames()
	// drop the Reconcile of decide
	names = names[1:]
	n := len(names)
	if n < 5 || !reflect.DeepEqual(names[n-3:], []string{"StopReconciling", "Remove", "Destroy"}) {
		t.Fatalf("calls %v, want MarkTerminating... then StopReconciling, Remove, Destroy", names)
	}
	for _, name := range names[:n-3] {
		if name != "MarkTerminating" {
			t.Fatalf("calls %v, want only MarkTerminating before StopReconciling", names)
		}
	}
	if marks := n - 3; marks < int(delay/interval)/2 {
		t.Errorf("%d MarkTerminating calls over a %s delay at a %s interval: leases not refreshed", marks, delay, interval)
	}
	for _, c := range tc.rec.calls {
		if c.name == "Remove" && c.at.Sub(start) < delay {
			t.Errorf("removed %s after shutdown started, before the %s delay was over", c.at.Sub(start), delay)
		}
	}
	tc.Stop() // a second call is a no-op
	if got := len(tc.rec.callNames()); got != n+1 {
		t.Errorf("second Stop made %d more calls", got-n-1)
	}
}

// TestStopBeforeReady: an apiserver that never published itself does not
// publish itself as terminating on the way out.
func TestStopBeforeReady(t *testing.T) {
	tc := newTestController(t, Config{Interval: 50 * time.Millisecond, ShutdownDelay: 200 * time.Millisecond})
	tc.Stop()
	if names := tc.rec.callNames(); !reflect.DeepEqual(names, []string{"StopReconciling", "Remove", "Destroy"}) {
		t.Errorf("calls %v, want StopReconciling, Remove, Destroy", names)
	}
}

// TestStopHandsOffAfterFailedReconciles: an apiserver whose reconciles all lost to a
// peer's write still hands off; peers publish it from the lease each one refreshed.
func TestStopHandsOffAfterFailedReconciles(t *testing.T) {
	tc := newTestController(t, Config{Interval: 50 * time.Millisecond})
	tc.rec.reconcileErr = apierrors.NewConflict(schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, "kubernetes", errors.New("the object has been modified"))
	tc.reconcileEndpoints(context.Background())
	if tc.decision.Load() != nil {
		t.Fatal("a failed reconcile left a decision")
	}
	tc.Stop()
	want := []string{"Reconcile", "MarkTerminating", "StopReconciling", "Remove", "Destroy"}
	if names := tc.rec.callNames(); !reflect.DeepEqual(names, want) {
		t.Errorf("calls %v, want %v", names, want)
	}
}

func TestNewRejects(t *testing.T) {
	tc := newTestController(t, Config{})
	for name, cfg := range map[string]Config{
		"no reconciler": {Interval: time.Second, ServiceIP: serviceIP},
		"no interval":   {Reconciler: tc.rec, ServiceIP: serviceIP},
		"no service IP": {Reconciler: tc.rec, Interval: time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := New(cfg, tc.client, nil); err == nil {
				t.Error("New succeeded")
			}
		})
	}
}

// teeRecorder records every event with the controller's recorder and with also.
type teeRecorder struct {
	events.EventRecorder
	also events.EventRecorder
}

func (r teeRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...interface{}) {
	r.also.Eventf(regarding, related, eventtype, reason, action, note, args...)
	r.EventRecorder.Eventf(regarding, related, eventtype, reason, action, note, args...)
}
