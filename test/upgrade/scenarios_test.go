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

package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestScenariosPerVersion(t *testing.T) {
	list, err := scenarios([]string{"a", "b", "c"}, []string{"v1.37.2", "v1.37.1", "v1.36.3", "v1.33.13"}, "v1.37.2")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sc := range list {
		names = append(names, sc.name)
	}
	if got, want := strings.Join(names, " "), "a/v1.37.2 a/v1.37.1 a/v1.36.3 b/netfork b/v1.33.13 c/v1.37.2"; got != want {
		t.Fatalf("scenarios = %s, want %s", got, want)
	}
	if _, err := scenarios([]string{"d"}, nil, "v1.37.2"); err == nil || !strings.Contains(err.Error(), `unknown scenario "d"`) {
		t.Fatalf("scenario d: %v", err)
	}
}

func TestExactlyOneUnsafeStepMixesBitmapOnlyWithoutDualWrite(t *testing.T) {
	for _, sc := range []scenario{scenarioB(netfork("MultiCIDRServiceAllocator=false"), "netfork"), scenarioB(upstream("v1.33.13", "--feature-gates=MultiCIDRServiceAllocator=false"), "v1.33.13"), scenarioA("v1.36.3"), scenarioC("v1.37.2")} {
		unsafe := 0
		for _, st := range sc.steps {
			if hasUnsafeMix(st.members) != st.unsafe {
				t.Errorf("%s %q: unsafe=%t but its members mix unsafely: %t", sc.name, st.name, st.unsafe, hasUnsafeMix(st.members))
			}
			if st.unsafe {
				unsafe++
				if st.bitmaps {
					t.Errorf("%s %q: the unsafe step cannot promise bitmaps that agree", sc.name, st.name)
				}
			}
		}
		if want := map[bool]int{true: 1, false: 0}[strings.HasPrefix(sc.name, "b/")]; unsafe != want {
			t.Errorf("%s has %d unsafe steps, want %d", sc.name, unsafe, want)
		}
	}
}

func TestFamilyRowAllowsOneChangeWhereTheStepChangesFamilies(t *testing.T) {
	for _, tc := range []struct {
		changes   int
		mayChange bool
		want      string
	}{{0, false, "ok"}, {1, false, "FAIL"}, {1, true, "ok"}, {2, true, "FAIL"}} {
		if got := familyRow(tc.changes, tc.mayChange).Status; got != tc.want {
			t.Errorf("familyRow(%d, %t) = %s, want %s", tc.changes, tc.mayChange, got, tc.want)
		}
	}
}

func TestFamilyWatchCountWaitsForAFreshRead(t *testing.T) {
	f := &familyWatch{}
	go func() {
		for i := 0; i < 2; i++ {
			time.Sleep(50 * time.Millisecond)
			f.mu.Lock()
			f.polls++
			if i == 1 {
				f.changes++ // The change a read after count's call sees.
			}
			f.mu.Unlock()
		}
	}()
	if got := f.count(); got != 1 {
		t.Fatalf("count = %d, want the change seen by the read that started after the call", got)
	}
}

func TestPinnedReleaseIsGoModsKubernetes(t *testing.T) {
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*k8s\.io/kubernetes (v1\.\S+)`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod requires no k8s.io/kubernetes")
	}
	if got, err := pinnedRelease(); err != nil || got != string(m[1]) {
		t.Fatalf("pinnedRelease() = %q, %v; want go.mod's %s", got, err, m[1])
	}
}
