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

package proc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// readyzServer answers /readyz with a failed check until ready is set.
func readyzServer(t *testing.T, ready *atomic.Bool, calls *atomic.Int32) *rest.Config {
	t.Helper()
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/readyz" || r.URL.Query().Get("verbose") != "true" {
			http.Error(w, "unexpected "+r.URL.String(), http.StatusNotFound)
			return
		}
		if !ready.Load() {
			http.Error(w, "[+]ping ok\n[-]poststarthook/start-service-ip-repair-controllers failed: reason withheld\nreadyz check failed", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte("[+]ping ok\nreadyz check passed"))
	}))
	t.Cleanup(s.Close)
	return &rest.Config{Host: s.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
}

func TestWaitReadyWaitsForReadyzAndChecks(t *testing.T) {
	var ready atomic.Bool
	var calls, checks atomic.Int32
	config := readyzServer(t, &ready, &calls)
	check := func(context.Context) error {
		if checks.Add(1) < 3 {
			return errors.New("kubernetes Service not there yet")
		}
		return nil
	}
	go func() {
		for calls.Load() < 3 {
			time.Sleep(5 * time.Millisecond)
		}
		ready.Store(true)
	}()
	err := WaitReady(context.Background(), config, Interval(10*time.Millisecond), Timeout(10*time.Second), AlsoWaitFor(check))
	if err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	if checks.Load() != 3 {
		t.Errorf("check ran %d times, want 3 (only once /readyz is ok)", checks.Load())
	}
}

func TestWaitReadyTimeoutNamesFailedChecks(t *testing.T) {
	var ready atomic.Bool
	var calls atomic.Int32
	config := readyzServer(t, &ready, &calls)
	err := WaitReady(context.Background(), config, Interval(10*time.Millisecond), Timeout(200*time.Millisecond))
	want := config.Host + " not ready after 200ms: /readyz: [-]poststarthook/start-service-ip-repair-controllers failed: reason withheld"
	if err == nil || err.Error() != want {
		t.Fatalf("WaitReady error = %v, want %q", err, want)
	}
}

func TestWaitReadyFailsWhenTheProcessExits(t *testing.T) {
	var ready atomic.Bool
	var calls atomic.Int32
	config := readyzServer(t, &ready, &calls)
	log := filepath.Join(t.TempDir(), "log")
	p, err := Start(Spec{Name: "apiserver-1", Path: "/bin/sh", Args: []string{"-c", "echo 'Error: bad flag' >&2; exit 1"}, LogPath: log})
	if err != nil {
		t.Fatal(err)
	}
	err = WaitReady(context.Background(), config, Interval(10*time.Millisecond), Timeout(time.Minute), ExitsOn(p))
	if err == nil || !strings.Contains(err.Error(), "apiserver-1 stopped (exit status 1): Error: bad flag") {
		t.Fatalf("WaitReady error = %v, want the process's exit", err)
	}
}

func TestWaitReadyReturnsContextError(t *testing.T) {
	var ready atomic.Bool
	var calls atomic.Int32
	config := readyzServer(t, &ready, &calls)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for calls.Load() < 2 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	if err := WaitReady(ctx, config, Interval(10*time.Millisecond), Timeout(time.Minute)); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitReady error = %v, want context.Canceled", err)
	}
}

func TestFailedChecks(t *testing.T) {
	body := "[+]ping ok\n[-]etcd failed: reason withheld\n[-]poststarthook/x failed: reason withheld\nreadyz check failed"
	if got, want := FailedChecks(body), "[-]etcd failed: reason withheld, [-]poststarthook/x failed: reason withheld"; got != want {
		t.Fatalf("FailedChecks = %q, want %q", got, want)
	}
	if got := FailedChecks("ok"); got != "" {
		t.Fatalf("FailedChecks(ok) = %q", got)
	}
}
