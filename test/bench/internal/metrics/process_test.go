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

package metrics

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseStatCPUAddsUserAndSystemTicks(t *testing.T) {
	// A command name with spaces and a parenthesis, as /proc shows it; utime 250 and
	// stime 75 ticks are fields 14 and 15, and the fields around them must not count.
	stat := "4242 (kube apiserver) (x)) S 1 4242 4242 0 -1 4194560 9 0 0 0 250 75 7 8 20 0 12 0 100 2000000 500 18446744073709551615\n"
	got, err := parseStatCPU(stat)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3250 * time.Millisecond; got != want {
		t.Errorf("parseStatCPU = %v, want %v", got, want)
	}
}

func TestParseStatCPUNamesWhatIsWrong(t *testing.T) {
	for _, tc := range []struct{ stat, want string }{
		{"4242 kube-apiserver S 1", "no command name"},
		{"4242 (kube-apiserver) S 1 2 3", "fields after the command name"},
		{"4242 (kube-apiserver) S 1 4242 4242 0 -1 4194560 9 0 0 0 x 75 7", `field 14 "x"`},
	} {
		if _, err := parseStatCPU(tc.stat); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseStatCPU(%q) = %v, want an error with %q", tc.stat, err, tc.want)
		}
	}
}

// TestCPUTimeOfThisProcessGrows reads this test's own /proc entry and rusage around some
// work, so a wrong field or unit shows as no growth or as more than the wall time allows.
func TestCPUTimeOfThisProcessGrows(t *testing.T) {
	statBefore, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	selfBefore, err := selfCPUTime()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	x := 0
	for time.Since(start) < 200*time.Millisecond {
		x++
	}
	wall := time.Since(start)
	statAfter, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	selfAfter, err := selfCPUTime()
	if err != nil {
		t.Fatal(err)
	}
	// Other goroutines of the test binary may run meanwhile, so allow a core's worth more
	// than the wall time; the busy loop alone is at least a tick of /proc's 10 ms.
	for name, d := range map[string]time.Duration{"/proc stat": statAfter - statBefore, "rusage": selfAfter - selfBefore} {
		if d < 10*time.Millisecond || d > 2*wall+20*time.Millisecond {
			t.Errorf("%s CPU time grew by %v over a busy loop of %v (%d turns)", name, d, wall, x)
		}
	}
}
