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

package registrytest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// Runner is a repair loop: RunUntil runs passes until stopCh is closed and
// calls onFirstSuccess once the first pass succeeded.
type Runner interface {
	RunUntil(onFirstSuccess func(), stopCh chan struct{})
}

// RunFirstPass runs r until its first success and stops it, failing the test
// if the first pass does not succeed or RunUntil does not return.
func RunFirstPass(t *testing.T, r Runner) {
	t.Helper()
	stopCh := make(chan struct{})
	firstSuccess := make(chan struct{})
	var calls atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.RunUntil(func() {
			if calls.Add(1) == 1 {
				close(firstSuccess)
			}
		}, stopCh)
	}()
	select {
	case <-firstSuccess:
	case <-time.After(30 * time.Second):
		close(stopCh)
		t.Fatal("the first pass did not succeed")
	}
	close(stopCh)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("RunUntil did not return after stopCh closed")
	}
	if got := calls.Load(); got != 1 {
		t.Errorf("onFirstSuccess called %d times, want 1", got)
	}
}

// RunUntilTried runs r until tried reports that it had its chance (e.g. the
// fake API counted several failed passes, or the loop polled its caches) or
// its first pass succeeds, then stops it. It fails the test if neither
// happens within 30s or RunUntil does not return once stopped, and reports
// whether onFirstSuccess was called.
func RunUntilTried(t *testing.T, r Runner, tried func() bool) (firstSuccess bool) {
	t.Helper()
	stopCh := make(chan struct{})
	done := make(chan struct{})
	succeeded := make(chan struct{})
	var once sync.Once
	go func() {
		defer close(done)
		r.RunUntil(func() { once.Do(func() { close(succeeded) }) }, stopCh)
	}()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		select {
		case <-succeeded:
			return true, nil
		default:
			return tried(), nil
		}
	})
	close(stopCh)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("RunUntil did not return after stopCh closed")
	}
	if err != nil {
		t.Fatal("the loop neither had its chance nor succeeded within 30s")
	}
	select {
	case <-succeeded:
		return true
	default:
		return false
	}
}

// FirstPassError is a transient failure of a repair loop's first pass: the
// Service list fails with ListErrs, the bitmap read with GetErrs, in order,
// and WantFailures passes fail before one succeeds.
type FirstPassError struct {
	Name         string
	ListErrs     []error
	GetErrs      []error
	WantFailures float64
}

// FirstPassErrors are the transient failures a repair loop's first pass must
// retry at once (kubernetes/kubernetes#141220, #136288).
func FirstPassErrors() []FirstPassError {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, "",
		errors.New(`User "system:apiserver" cannot list resource "services"`)) //nolint:staticcheck // ST1005: the apiserver's own Forbidden text.
	return []FirstPassError{
		{Name: "Service list answers 503", ListErrs: []error{apierrors.NewServiceUnavailable("etcd is starting")}, WantFailures: 1},
		{Name: "Service list forbidden while RBAC loads", ListErrs: []error{forbidden, forbidden, forbidden}, WantFailures: 3},
		{Name: "Service list throttled", ListErrs: []error{apierrors.NewTooManyRequests("watch cache initializing", 1)}, WantFailures: 1},
		{Name: "bitmap read fails", GetErrs: []error{apierrors.NewInternalError(errors.New("etcd timeout"))}, WantFailures: 1},
	}
}

// FailLists makes client's first Service lists fail with errs, in order.
func FailLists(client *fake.Clientset, errs []error) {
	var lists atomic.Int32
	client.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		if n := int(lists.Add(1)); n <= len(errs) {
			return true, nil, errs[n-1]
		}
		return false, nil, nil
	})
}

// WantEvents runs r until client holds events in namespace default, stops it,
// and compares them, as "type|reason|action|kind|name|reportingController|note",
// with want, failing the test if none comes within 30s.
func WantEvents(t *testing.T, r Runner, client *fake.Clientset, want ...string) {
	t.Helper()
	stopCh := make(chan struct{})
	defer close(stopCh)
	go r.RunUntil(func() {}, stopCh)

	var got []string
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := client.EventsV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		got = got[:0]
		for _, e := range list.Items {
			got = append(got, strings.Join([]string{e.Type, e.Reason, e.Action, e.Regarding.Kind, e.Regarding.Name, e.ReportingController, e.Note}, "|"))
		}
		return len(got) > 0, nil
	})
	if err != nil {
		t.Fatalf("no event recorded: %v", err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
}
