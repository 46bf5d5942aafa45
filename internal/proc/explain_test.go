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
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestErrorLine(t *testing.T) {
	tests := map[string]string{
		"I1121 a\nError: unknown flag: --x\n":         "Error: unknown flag: --x",
		"I1121 a\nE1121 10:00:00 boom\nI1121 after\n": "E1121 10:00:00 boom",
		`E1121 22:16:37.114389    8738 run.go:72] "command failed" err="unrecognized feature gate: NoSuchGate"`:           "unrecognized feature gate: NoSuchGate",
		`E1121 22:16:37.114389 1 server.go:1] "Unable to reach etcd" err="dial tcp: refused" endpoint="x"` + "\nI1121 ok": "Unable to reach etcd: dial tcp: refused",
		`F1121 22:16:37.114389 1 x.go:1] plain fatal`:                                                                     "plain fatal",
		"just text\nlast line\n": "last line",
		"":                       "no output",
		strings.Repeat("x", 500): strings.Repeat("x", 400) + "...",
	}
	for in, want := range tests {
		if got := ErrorLine(in); got != want {
			t.Errorf("ErrorLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExplainReadsTheTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	// An early Error: line far before the tail must not win over the last line.
	data := "Error: early\n" + strings.Repeat("I1121 filler line\n", logTail/10) + "E1121 10:00:00.0 1 x.go:1] \"late\" err=\"boom\"\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Explain(path); got != "late: boom" {
		t.Fatalf("Explain = %q, want the last klog error", got)
	}
	if got := Explain(filepath.Join(t.TempDir(), "missing")); !strings.HasPrefix(got, "log unreadable: ") {
		t.Fatalf("Explain(missing) = %q", got)
	}
}
