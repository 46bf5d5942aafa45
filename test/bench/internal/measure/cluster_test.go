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

package measure

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	"github.com/netfork/netfork/test/bench/internal/plan"
	"github.com/netfork/netfork/test/bench/internal/result"
)

// TestPhaseProfiles checks --profile with --cluster: profiles follow each other through
// the phase, each kept under its number, none starts after stop, and wait returns once the
// one in flight is kept; the other phase takes none.
func TestPhaseProfiles(t *testing.T) {
	var served atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/debug/pprof/profile" || req.URL.Query().Get("seconds") != "1" {
			http.Error(w, "unexpected "+req.URL.String(), http.StatusBadRequest)
			return
		}
		k := served.Add(1)
		if k >= 3 {
			<-release // The third profile is the one in flight when the phase ends.
		}
		fmt.Fprintf(w, "profile %d", k)
	}))
	defer srv.Close()
	client, err := kubernetes.NewForConfig(&restclient.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var log bytes.Buffer
	m := &clusterRun{
		ctx:      context.Background(),
		o:        &plan.Options{OutputDir: dir, Profile: true, ProfileDuration: time.Second, ProfilePhase: plan.PhaseCreate},
		profiled: client,
		log:      &log,
		r:        &result.ClusterResult{APIServer: "upstream", Round: 2},
	}
	m.profile(plan.PhaseDelete).wait() // not --profile-phase: returns at once, takes nothing
	if served.Load() != 0 {
		t.Fatalf("the delete phase took %d profiles with --profile-phase=create", served.Load())
	}
	p := m.profile(plan.PhaseCreate)
	deadline := time.Now().Add(30 * time.Second)
	for served.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d profiles requested in 30s, want 3 back to back", served.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.stop()
	close(release)
	p.wait()
	if got := served.Load(); got != 3 {
		t.Errorf("%d profiles requested, want 3: none may start after stop", got)
	}
	for k := 1; k <= 3; k++ {
		path := filepath.Join(dir, "profiles", fmt.Sprintf("cpu-upstream-r2-create-%02d.pprof", k))
		data, err := os.ReadFile(path)
		if err != nil || string(data) != fmt.Sprintf("profile %d", k) {
			t.Errorf("%s: %q, %v; want profile %d", path, data, err, k)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "profiles", "cpu-upstream-r2-create-04.pprof")); !os.IsNotExist(err) {
		t.Errorf("a fourth profile was kept: %v", err)
	}
}
