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

package renumber

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	k8stesting "k8s.io/client-go/testing"
)

// etcdTimeout is the 422 the update of Service s03 gets when its IPAddress's
// write timed out on etcd (seen on a three-member etcd during a leader election).
func etcdTimeout() error {
	return apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, "s03", field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"), []string{"10.96.0.23"},
		"failed to allocate IP 10.96.0.23: etcdserver: request timed out, possibly due to previous leader failure")})
}

func TestTransient(t *testing.T) {
	gr := schema.GroupResource{Resource: "services"}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"etcd timeout in an allocation", etcdTimeout(), true},
		{"the same, wrapped", fmt.Errorf("moving Service apps/s03 back: %w", etcdTimeout()), true},
		{"server timeout", apierrors.NewServerTimeout(gr, "update", 1), true},
		{"gateway timeout", apierrors.NewTimeoutError("request did not complete", 1), true},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 1), true},
		{"service unavailable", apierrors.NewServiceUnavailable("starting"), true},
		{"internal error", apierrors.NewInternalError(errors.New("etcd cluster is unavailable")), true},
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, true},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, true},
		{"unexpected EOF", &url.Error{Op: "Get", URL: "https://198.18.16.2:6443/api/v1/services", Err: io.ErrUnexpectedEOF}, true},
		{"address taken", apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, "s03", field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"), []string{"10.96.0.23"}, "failed to allocate IP 10.96.0.23: provided IP is already allocated")}), false},
		{"forbidden", apierrors.NewForbidden(gr, "s03", errors.New("no")), false},
		{"conflict", apierrors.NewConflict(gr, "s03", errors.New("changed")), false},
		{"not found", apierrors.NewNotFound(gr, "s03"), false},
		{"canceled", fmt.Errorf("get: %w", context.Canceled), false},
		{"a kill", errors.New("killed after step 7"), false},
		{"nil", nil, false},
	} {
		if got := Transient(tc.err); got != tc.want {
			t.Errorf("%s: Transient(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// failOnce fails the first update of Service ns/name back to a ClusterIP
// (not the flip to ExternalName) with err, before the timeline sees it.
func failOnce(tl *timeline, ns, name string, err error) *int {
	calls := 0
	tl.client.PrependReactor("update", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		svc := a.(k8stesting.UpdateAction).GetObject().(*corev1.Service)
		if svc.Namespace != ns || svc.Name != name || svc.Spec.Type == corev1.ServiceTypeExternalName {
			return false, nil, nil
		}
		calls++
		if calls > 1 {
			return false, nil, nil
		}
		return true, nil, err
	})
	return &calls
}

// moved is a timeline of n Services a renumber moved, with their keys.
func moved(t *testing.T, n int) (*timeline, []string) {
	t.Helper()
	tl := newTimeline(n)
	var log bytes.Buffer
	st := newState()
	if err := tl.runner(0, &log).moveAll(context.Background(), st); err != nil {
		t.Fatalf("moveAll: %v\n%s", err, log.String())
	}
	var keys []string
	for _, rec := range st.Services {
		keys = append(keys, rec.key())
	}
	tl.events = nil
	return tl, keys
}

// TestRollbackResumesAfterTransientError checks that a rollback whose restore
// of one Service fails on etcd, mid-window, continues from the record after a
// pause, takes every Service back, and that every name resolves to a served
// address throughout, the pause too.
func TestRollbackResumesAfterTransientError(t *testing.T) {
	ctx := context.Background()
	tl, keys := moved(t, 8)
	calls := failOnce(tl, "apps", "s03", etcdTimeout())
	var log bytes.Buffer
	start := tl.names(t)
	if _, err := tl.runner(0, &log).Rollback(ctx); err != nil {
		t.Fatalf("rollback: %v\n%s", err, log.String())
	}
	if *calls != 2 {
		t.Fatalf("s03 was restored %d times, want 2 (one failed, one after the retry)\n%s", *calls, log.String())
	}
	logHas(t, log.String(), "rollback: moving Service apps/s03 back", "etcdserver: request timed out", "transient, continuing from the record in 1s (retry 1 of 5)",
		"Service apps/s03-renumber-bridge: created again at 10.96.0.23")
	checkNames(t, start, tl.events, keys)
	checkRolledBack(t, tl, 8)
}

// TestRollbackResumesAfterKill checks that a rollback killed right after a
// Service's flip, run again, creates the Service's holder and points its
// CNAME there only once kube-proxy serves it, and takes every Service back
// with every name resolving to a served address throughout.
func TestRollbackResumesAfterKill(t *testing.T) {
	ctx := context.Background()
	tl, keys := moved(t, 8)
	var log bytes.Buffer
	start := tl.names(t)
	r := tl.runner(0, &log)
	r.opts.AfterStep = func(step string) error {
		if strings.HasPrefix(step, "Service apps/s03: type ExternalName") {
			return errors.New("killed")
		}
		return nil
	}
	if _, err := r.Rollback(ctx); err == nil || err.Error() != "killed" {
		t.Fatalf("rollback returned %v, want the kill\n%s", err, log.String())
	}
	tl.now = tl.now.Add(5 * time.Second) // the operator runs it again
	r = tl.runner(0, &log)
	if _, err := r.Rollback(ctx); err != nil {
		t.Fatalf("rollback, run again: %v\n%s", err, log.String())
	}
	hold, retarget := find(tl.events, "hold", "apps/s03"), find(tl.events, "retarget", "apps/s03")
	switch {
	case hold == nil || retarget == nil:
		t.Errorf("the resumed rollback did not create s03's holder and point its CNAME there\n%s", log.String())
	case retarget.start.Sub(hold.at) < r.idleAfter():
		t.Errorf("s03's CNAME turned to its holder %v after the holder was created, want at least %s, kube-proxy's time to serve it", retarget.start.Sub(hold.at), r.idleAfter())
	}
	checkNames(t, start, tl.events, keys)
	checkRolledBack(t, tl, 8)
}

// checkRolledBack checks that tl's n Services are back at their old
// addresses, with no bridge, holder or primer left.
func checkRolledBack(t *testing.T, tl *timeline, n int) {
	t.Helper()
	ctx := context.Background()
	l, err := tl.client.CoreV1().Services("apps").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != n {
		t.Errorf("after the rollback apps holds %d Services, want the %d moved, no bridge or holder", len(l.Items), n)
	}
	for _, svc := range l.Items {
		i, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(svc.Name, "s"), "-big"))
		if want := fmt.Sprintf("10.96.0.%d", 20+i); svc.Spec.ClusterIP != want || svc.Spec.Type != corev1.ServiceTypeClusterIP {
			t.Errorf("Service %s is %s at %s after the rollback, want ClusterIP at %s", svc.Name, svc.Spec.Type, svc.Spec.ClusterIP, want)
		}
	}
	slices, err := tl.client.DiscoveryV1().EndpointSlices("").List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelManagedBy + "=" + PrimerManagedBy})
	if err != nil {
		t.Fatal(err)
	}
	if len(slices.Items) > 0 {
		t.Errorf("%d primers left after the rollback", len(slices.Items))
	}
}

// TestNoRetryOnRefusal checks that a refusal stops a rollback at once, with
// no pause and no retry, and that Retries < 0 stops on a transient error too.
func TestNoRetryOnRefusal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		retries int
	}{
		{"forbidden", apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, "s03", errors.New("no")), 0},
		{"transient with retries off", etcdTimeout(), -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl, _ := moved(t, 6)
			calls := failOnce(tl, "apps", "s03", tc.err)
			var log bytes.Buffer
			r := tl.runner(0, &log)
			r.opts.Retries = tc.retries
			if r.opts.Retries == 0 {
				r.opts.Retries = defaultRetries
			}
			_, err := r.Rollback(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.err.Error()) {
				t.Errorf("rollback returned %v, want the planted %v", err, tc.err)
			}
			if *calls != 1 || strings.Contains(log.String(), "transient, continuing") {
				t.Errorf("s03 was restored %d times, want 1 and no retry\n%s", *calls, log.String())
			}
		})
	}
}

// TestMoveResumesMidWindow checks that a renumber stopped between a
// Service's holder's delete and its return (its restore failed) continues in
// a run of its own, from the record, with the Service's holder created again
// and a window primed for its return: every name resolves to a served address
// throughout, and no holder or primer is left.
func TestMoveResumesMidWindow(t *testing.T) {
	ctx := context.Background()
	tl := newTimeline(8)
	calls := failOnce(tl, "apps", "s03", apierrors.NewServiceUnavailable("the apiserver is shutting down"))
	var log bytes.Buffer
	start := tl.names(t)
	if err := tl.runner(0, &log).moveAll(ctx, newState()); err == nil {
		t.Fatalf("moveAll went through the planted failure\n%s", log.String())
	}
	tl.now = tl.now.Add(5 * time.Second) // the operator runs it again
	r := tl.runner(0, &log)
	st, err := r.store.load(ctx)
	if err != nil || st == nil {
		t.Fatalf("loading the record: %v, %v", st, err)
	}
	if err := r.moveAll(ctx, st); err != nil {
		t.Fatalf("moveAll, run again: %v\n%s", err, log.String())
	}
	if *calls != 2 {
		t.Fatalf("s03 was restored %d times, want 2\n%s", *calls, log.String())
	}
	logHas(t, log.String(), "Service apps/s03-renumber-holder: created again at", "Service apps/s03: 1 EndpointSlices of s03-renumber-primer written to prime its window")
	var keys []string
	for _, rec := range st.Services {
		keys = append(keys, rec.key())
	}
	checkNames(t, start, tl.events, keys)
	l, err := tl.client.CoreV1().Services("apps").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, svc := range l.Items {
		if strings.HasSuffix(svc.Name, "-renumber-holder") {
			t.Errorf("holder %s left after the renumber", svc.Name)
		}
	}
	slices, err := tl.client.DiscoveryV1().EndpointSlices("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range slices.Items {
		if strings.Contains(s.Name, "-renumber-primer") {
			t.Errorf("primer %s left after the renumber", s.Name)
		}
	}
}
