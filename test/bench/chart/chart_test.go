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
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeData(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "chart.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunWritesAPNGPerChart(t *testing.T) {
	in := writeData(t, `{"charts": [
	  {"cidrs": 0, "ns": [1000, 10000], "series": [
	    {"contender": "netfork", "p50_ms": [2, 3], "p90_ms": [5, 8], "p99_ms": [20, 30]},
	    {"contender": "upstream", "p50_ms": [40, null], "p90_ms": [90, null], "p99_ms": [300, null], "failed": true}]},
	  {"cidrs": 100, "ns": [1000], "series": [
	    {"contender": "netfork", "p50_ms": [2], "p90_ms": [6], "p99_ms": [25]}]}]}`)
	out := filepath.Join(t.TempDir(), "latency.png")
	written, err := run(in, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 2 || written[0] != out || !strings.HasSuffix(written[1], "latency-k100.png") {
		t.Fatalf("run wrote %v, want latency.png and latency-k100.png", written)
	}
	for _, p := range written {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s is not a PNG: %v", p, err)
		}
		// Three panels side by side: wider than tall.
		if b := img.Bounds(); b.Dx() <= 2*b.Dy() {
			t.Errorf("%s is %dx%d, want three panels side by side", p, b.Dx(), b.Dy())
		}
	}
	entries, err := os.ReadDir(filepath.Dir(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("output dir holds %d files, want the 2 PNGs and no temporary file", len(entries))
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	for name, tc := range map[string]struct{ body, out, want string }{
		"no charts":      {`{"charts": []}`, "x.png", "no charts"},
		"not json":       {`nope`, "x.png", "invalid character"},
		"not png":        {`{"charts": [{"cidrs": 0, "ns": [1], "series": []}]}`, "x.svg", "must end in .png"},
		"ragged series":  {`{"charts": [{"cidrs": 0, "ns": [1, 2], "series": [{"contender": "netfork", "p50_ms": [1], "p90_ms": [1], "p99_ms": [1]}]}]}`, "x.png", "netfork has 1 p50 values for 2 Ns"},
		"missing values": {`{"charts": [{"cidrs": 0, "ns": [1], "series": [{"contender": "netfork"}]}]}`, "x.png", "netfork has 0 p50 values for 1 Ns"},
	} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), tc.out)
			_, err := run(writeData(t, tc.body), out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("run = %v, want an error containing %q", err, tc.want)
			}
			if _, statErr := os.Stat(out); statErr == nil {
				t.Errorf("%s was written despite the error", out)
			}
		})
	}
	if _, err := run(filepath.Join(t.TempDir(), "absent.json"), "x.png"); err == nil || !strings.Contains(err.Error(), "absent.json") {
		t.Errorf("run on a missing file = %v, want an error naming it", err)
	}
}
