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

package repairloop

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
)

// fastBackoff keeps first-pass retries in the milliseconds.
var fastBackoff = wait.Backoff{Duration: time.Millisecond, Factor: 2, Steps: 100, Cap: 5 * time.Millisecond}

var (
	errUnavailable = apierrors.NewServiceUnavailable("etcd is starting")
	errForbidden   = apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, "", errors.New("RBAC not loaded"))
	errConflict    = apierrors.NewConflict(schema.GroupResource{Resource: "rangeallocations"}, "", errors.New("changed"))
)

// scriptedPass fails with errs in order, then succeeds, counting its calls.
type scriptedPass struct {
	errs  []error
	calls atomic.Int32
}

func (s *scriptedPass) pass(context.Context) error {
	n := int(s.calls.Add(1))
	if n <= len(s.errs) {
		return s.errs[n-1]
	}
	return nil
}

func TestLoopFirstPass(t *testing.T) {
	tests := []struct {
		name            string
		errs            []error
		wantCalls       int32
		wantAttemptErrs int32
	}{
		{name: "first pass succeeds", wantCalls: 1},
		{name: "unavailable then success", errs: []error{errUnavailable, errUnavailable}, wantCalls: 3, wantAttemptErrs: 2},
		{name: "forbidden while starting then success", errs: []error{errForbidden}, wantCalls: 2, wantAttemptErrs: 1},
		{name: "conflicts beyond the immediate retries", errs: []error{errConflict, errConflict, errConflict, errConflict, errConflict, errConflict, errConflict}, wantCalls: 8, wantAttemptErrs: 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := &scriptedPass{errs: tc.errs}
			var attemptErrs, firstSuccess atomic.Int32
			done := make(chan struct{})
			l := Loop{Interval: time.Hour, FirstPassBackoff: fastBackoff, Pass: s.pass, OnAttemptError: func() { attemptErrs.Add(1) }}
			go func() {
				defer close(done)
				l.Run(ctx, func() { firstSuccess.Add(1); cancel() })
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Run did not return after its first success")
			}
			if got := firstSuccess.Load(); got != 1 {
				t.Errorf("onFirstSuccess called %d times, want 1", got)
			}
			if got := s.calls.Load(); got != tc.wantCalls {
				t.Errorf("pass called %d times, want %d", got, tc.wantCalls)
			}
			if got := attemptErrs.Load(); got != tc.wantAttemptErrs {
				t.Errorf("OnAttemptError called %d times, want %d", got, tc.wantAttemptErrs)
			}
		})
	}
}

func TestLoopLaterPasses(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The second pass fails: it must neither call onFirstSuccess again nor stop the loop.
	s := &scriptedPass{}
	var calls atomic.Int32
	pass := func(ctx context.Context) error {
		if calls.Add(1) == 2 {
			return errUnavailable
		}
		return s.pass(ctx)
	}
	var firstSuccess atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		Loop{Interval: time.Millisecond, FirstPassBackoff: fastBackoff, Pass: pass}.Run(ctx, func() { firstSuccess.Add(1) })
	}()
	if err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return calls.Load() >= 5, nil
	}); err != nil {
		t.Fatalf("the loop ran %d passes, want at least 5: %v", calls.Load(), err)
	}
	cancel()
	<-done
	if got := firstSuccess.Load(); got != 1 {
		t.Errorf("onFirstSuccess called %d times, want 1", got)
	}
}

func TestLoopStops(t *testing.T) {
	tests := []struct {
		name string
		pass func(context.Context) error
	}{
		{name: "while the first pass keeps failing", pass: func(context.Context) error { return errUnavailable }},
		{name: "while waiting for the next interval", pass: func(context.Context) error { return nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			// once the pass returned, the loop waits an hour: for a retry, or the next interval
			passed := make(chan struct{})
			var once sync.Once
			pass := func(ctx context.Context) error {
				defer once.Do(func() { close(passed) })
				return tc.pass(ctx)
			}
			go func() {
				defer close(done)
				Loop{Interval: time.Hour, FirstPassBackoff: wait.Backoff{Duration: time.Hour}, Pass: pass}.Run(ctx, func() {})
			}()
			select {
			case <-passed:
			case <-time.After(10 * time.Second):
				t.Fatal("Run never ran its first pass")
			}
			cancel()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Run did not return after its context ended")
			}
		})
	}
}

func TestLeaksObserve(t *testing.T) {
	prev := Leaks[int]{}
	for pass := 1; pass <= LeakGrace; pass++ {
		next := Leaks[int]{}
		hold, seen := prev.Observe(7, next)
		if wantHold := pass < LeakGrace; hold != wantHold || seen != pass {
			t.Fatalf("pass %d: Observe = %v, %d; want %v, %d", pass, hold, seen, wantHold, pass)
		}
		if _, kept := next[7]; kept != hold {
			t.Fatalf("pass %d: next tracks the value = %v, want %v", pass, kept, hold)
		}
		prev = next
	}
	// A value not observed in a pass is forgotten: its grace starts again.
	if hold, seen := (Leaks[int]{}).Observe(7, Leaks[int]{}); !hold || seen != 1 {
		t.Errorf("after a clean pass: Observe = %v, %d; want true, 1", hold, seen)
	}
}
