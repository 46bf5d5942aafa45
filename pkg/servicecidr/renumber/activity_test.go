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
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
)

// TestPauseUntilIdle checks a window waits until kube-proxy is idle after
// another's change too, and no longer than maxIdleWaits idle periods in a
// cluster that keeps changing.
func TestPauseUntilIdle(t *testing.T) {
	ctx := context.Background()
	tl := newTimeline(0)
	var log bytes.Buffer
	r := tl.runner(windowPeriod, &log)
	r.act = &activity{now: func() time.Time { return tl.now }}
	idle := r.idleAfter()

	// the tool's last change 1 s ago, another's 0.5 s ago: idle a full idleAfter after the other's
	r.lastChange = tl.now.Add(-time.Second)
	tl.now = tl.now.Add(-500 * time.Millisecond)
	r.act.note("EndpointSlice kube-system/other")
	tl.now = tl.now.Add(500 * time.Millisecond)
	pause, note, err := r.pauseUntilIdle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := idle - 500*time.Millisecond; pause != want || note != " (idle after EndpointSlice kube-system/other)" {
		t.Errorf("paused %s with note %q; want %s, idle after the other's change", pause, note, want)
	}

	// a change 100 ms after the tool's own is its follow-up: no note, the tool's pause
	r.lastChange = tl.now
	tl.now = tl.now.Add(100 * time.Millisecond)
	r.act.note("EndpointSlice apps/web-x7k2p")
	if pause, note, _ = r.pauseUntilIdle(ctx); pause != idle-100*time.Millisecond || note != "" {
		t.Errorf("paused %s with note %q after a follow-up of the tool's change; want %s and no note", pause, note, idle-100*time.Millisecond)
	}

	// a cluster changing all the time: every pause sees another change at its end
	r.lastChange = tl.now
	r.sleep = func(_ context.Context, d time.Duration) error {
		tl.now = tl.now.Add(d)
		r.act.note("Service apps/busy")
		return nil
	}
	pause, note, _ = r.pauseUntilIdle(ctx)
	if pause > maxIdleWaits*idle || pause < (maxIdleWaits-1)*idle || !strings.HasPrefix(note, " (not idle: Service apps/busy changed") {
		t.Errorf("paused %s with note %q in a busy cluster; want at most %s, ended not idle", pause, note, maxIdleWaits*idle)
	}
}

// TestFollowActivity checks the run's watches note every change to a
// Service or EndpointSlice by anyone, named.
func TestFollowActivity(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	r := New(client, Options{})
	stop := r.followActivity(ctx)
	defer stop()
	// seen waits until the latest change noted is what, making change first
	// and, while repeat, again until then (the watches start after a list)
	seen := func(what string, repeat bool, change func() error) {
		t.Helper()
		i := 0
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			if _, got := r.act.latest(); got == what {
				return true, nil
			}
			if i > 0 && !repeat {
				return false, nil
			}
			i++
			return false, change()
		})
		if err != nil {
			_, got := r.act.latest()
			t.Fatalf("%s: not seen (latest %q): %v", what, got, err)
		}
	}
	// sentinels until each watch is up
	seen("Service apps/sentinel", true, func() error {
		err := client.CoreV1().Services("apps").Delete(ctx, "sentinel", metav1.DeleteOptions{})
		if err == nil || apierrors.IsNotFound(err) {
			_, err = client.CoreV1().Services("apps").Create(ctx, pacedService("apps", "sentinel", "10.96.0.9", nil), metav1.CreateOptions{})
		}
		return err
	})
	seen("EndpointSlice apps/sentinel-00000", true, func() error {
		err := client.DiscoveryV1().EndpointSlices("apps").Delete(ctx, "sentinel-00000", metav1.DeleteOptions{})
		if err == nil || apierrors.IsNotFound(err) {
			_, err = client.DiscoveryV1().EndpointSlices("apps").Create(ctx, pacedSlice("apps", "sentinel", 0), metav1.CreateOptions{})
		}
		return err
	})
	seen("Service apps/web", false, func() error {
		_, err := client.CoreV1().Services("apps").Create(ctx, pacedService("apps", "web", "10.96.0.20", nil), metav1.CreateOptions{})
		return err
	})
	seen("EndpointSlice apps/web-00000", false, func() error {
		_, err := client.DiscoveryV1().EndpointSlices("apps").Create(ctx, pacedSlice("apps", "web", 0), metav1.CreateOptions{})
		return err
	})
	r.act.note("the creates")
	seen("Service apps/web", false, func() error {
		return client.CoreV1().Services("apps").Delete(ctx, "web", metav1.DeleteOptions{})
	})
}
