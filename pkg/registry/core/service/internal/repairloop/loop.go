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
	"math"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
)

// DefaultFirstPassBackoff retries a failed first pass after 1s, 2s, 4s, ... up
// to 10s, so a transient error costs seconds of the post-start hook's minute.
var DefaultFirstPassBackoff = wait.Backoff{
	Duration: time.Second,
	Factor:   2,
	Jitter:   0.1,
	Steps:    math.MaxInt32,
	Cap:      10 * time.Second,
}

// Loop runs Pass at start-up and then every Interval.
type Loop struct {
	// Interval is the time between the end of one pass and the start of the next.
	Interval time.Duration
	// FirstPassBackoff spaces the retries of a first pass that failed.
	FirstPassBackoff wait.Backoff
	// Pass rebuilds the range once; a conflict error is retried at once, as upstream does.
	Pass func(ctx context.Context) error
	// OnAttemptError is called for each failed attempt, to count it in a metric.
	OnAttemptError func()
}

// Run runs the first pass until it succeeds, calls onFirstSuccess once, and
// then runs a pass every Interval until ctx is done. A pass that fails after
// the first success waits for the next interval, as upstream's does.
func (l Loop) Run(ctx context.Context, onFirstSuccess func()) {
	if !l.runFirstPass(ctx) {
		return
	}
	onFirstSuccess()

	timer := time.NewTimer(l.Interval)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		if err := l.attempt(ctx); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Repair pass failed; retrying at the next interval", "interval", l.Interval)
		}
		timer.Reset(l.Interval)
	}
}

// runFirstPass retries the first pass until it succeeds (true) or ctx is done (false).
func (l Loop) runFirstPass(ctx context.Context) bool {
	backoff := l.FirstPassBackoff
	for attempt := 1; ; attempt++ {
		err := l.attempt(ctx)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		delay := backoff.Step()
		utilruntime.HandleErrorWithContext(ctx, err, "First repair pass failed; retrying", "attempt", attempt, "delay", delay)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(delay):
		}
	}
}

// attempt runs one pass, retrying it at once while it fails with a conflict
// (another writer changed the bitmap between our read and our write).
func (l Loop) attempt(ctx context.Context) error {
	return retry.OnError(retry.DefaultBackoff, apierrors.IsConflict, func() error {
		err := l.Pass(ctx)
		if err != nil {
			if l.OnAttemptError != nil {
				l.OnAttemptError()
			}
			klog.FromContext(ctx).V(4).Info("Repair attempt failed", "err", err)
		}
		return err
	})
}
