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
	"path/filepath"
	"strings"
	"testing"
)

// TestHitRepairRace checks that only a log with upstream's whole repair race, its
// AlreadyExists, the repair loop giving up on it and the post-start hook failing, counts,
// and only when both lines are the last process's: the log holds every process of the slot.
func TestHitRepairRace(t *testing.T) {
	race := []string{
		`I1129 01:43:11.112612     605 repairip.go:210] Starting ipallocator-repair-controller`,
		`E1129 01:43:11.433261     605 repairip.go:259] "Running ipallocator repair failed with not retryable error" err="ipaddresses.networking.k8s.io \"10.96.166.223\" already exists"`,
		`F1129 01:44:09.830010     605 hooks.go:203] PostStartHook "start-service-ip-repair-controllers" failed: unable to perform initial IP and Port allocation check`,
	}
	for _, tc := range []struct {
		name string
		log  []string
		want bool
	}{
		{"the race", race, true},
		{"no AlreadyExists", []string{race[0], strings.Replace(race[1], "already exists", "is forbidden", 1), race[2]}, false},
		{"the hook did not fail", race[:2], false},
		{"the hook failed on something else", []string{race[0], race[2]}, false},
		{"an earlier process gave up", []string{strings.Replace(race[1], "     605 ", "     301 ", 1), race[0], race[2]}, false},
		{"an earlier process failed the same way", []string{
			strings.Replace(race[1], "     605 ", "     301 ", 1), strings.Replace(race[2], "     605 ", "     301 ", 1), race[0], race[1], race[2]}, true},
		{"no log", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.log != nil {
				if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "logs", "apiserver-1.log"), []byte(strings.Join(tc.log, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := (&localUp{dataDir: dir}).hitRepairRace(1); got != tc.want {
				t.Errorf("hitRepairRace = %v, want %v", got, tc.want)
			}
		})
	}
}
