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
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// upstreamSrc stands for an upstream file: a package that uses its own names.
const upstreamSrc = `package reconcilers

import "fmt"

// NewThing is upstream's.
func NewThing(config Config, prefix string) (*Thing, error) {
	leases, err := NewLeases(config, prefix, ttl)
	if err != nil {
		return nil, err
	}
	adapter := NewEndpointsAdapter(endpoints, slices)
	ttl = config.TTL + config.Interval
	name := fmt.Sprintf("%s/%s", prefix, config.Name)
	thing := &Thing{leases: leases, adapter: adapter, name: name}
	thing.start()
	return thing, nil
}
`

// copySrc is upstreamSrc's body in another package, with its qualifiers and
// other comments, on lines 16 to 26; begin, mid and end go on lines 15, 24 and 27.
func copySrc(begin, mid, end string) string {
	return `package netfork

import (
	"fmt"

	upstream "k8s.io/kubernetes/pkg/controlplane/reconcilers"
)

func other() {
	unrelated := 1
	_ = unrelated
}

func copied(config upstream.Config, prefix string) (*upstream.Thing, error) {
` + begin + `
	leases, err := upstream.NewLeases(config, prefix, ttl) // a comment
	if err != nil {
		return nil, err
	}
	adapter := upstream.NewEndpointsAdapter(endpoints, slices)
	ttl = config.TTL + config.Interval
	name := fmt.Sprintf("%s/%s", prefix, config.Name)
	thing := &upstream.Thing{leases: leases, adapter: adapter, name: name}
` + mid + `
	thing.start()
	return thing, nil
` + end + `
}
`
}

// matchRuns scans src, as netfork's copy.go, against upstreamSrc, as
// k8s.io/kubernetes/up.go, with windows of 6 lines.
func matchRuns(src string) []run {
	up := []scanned{{src: source{name: "k8s.io/kubernetes/up.go"}, windows: windows(significantLines("up.go", []byte(upstreamSrc)), 6)}}
	nf := scanned{src: source{name: "copy.go"}, windows: windows(significantLines("copy.go", []byte(src)), 6)}
	wanted := map[uint64]bool{}
	for _, w := range nf.windows {
		wanted[w.hash] = true
	}
	return runs(nf, findRegions([]byte(src)), findPlaces(up, wanted), up)
}

func TestSignificantLines(t *testing.T) {
	lines := significantLines("up.go", []byte(upstreamSrc))
	// func, leases, adapter, ttl, name, thing, start, "return thing, nil"; not
	// the package clause, the import, the comment, the error check or the brackets.
	wantNums := []int{6, 7, 11, 12, 13, 14, 15, 16}
	if len(lines) != len(wantNums) {
		t.Fatalf("got %d significant lines %v, want lines %v", len(lines), lines, wantNums)
	}
	for i, l := range lines {
		if l.num != wantNums[i] {
			t.Errorf("significant line %d is line %d, want %d", i, l.num, wantNums[i])
		}
	}
	copied := significantLines("copy.go", []byte(copySrc("", "", "")))
	if copied[4].hash != lines[1].hash {
		t.Errorf("upstream.NewLeases(...) with a comment hashes unlike NewLeases(...): the qualifier or the comment counts")
	}
}

func TestRuns(t *testing.T) {
	for _, tc := range []struct {
		name            string
		begin, mid, end string
		wantMarked      bool
	}{
		{name: "unmarked"},
		{name: "marked", begin: beginMarker + "k8s.io/x/y.go F", end: endMarker, wantMarked: true},
		{name: "half marked", begin: beginMarker + "k8s.io/x/y.go F", mid: endMarker},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := copySrc(tc.begin, tc.mid, tc.end)
			got := matchRuns(src)
			if len(got) != 1 {
				t.Fatalf("got %d runs %+v, want 1", len(got), got)
			}
			r := got[0]
			if r.first != 16 || r.last != 26 || r.upstream != "k8s.io/kubernetes/up.go" || r.upFirst != 7 || r.upLast != 16 {
				t.Errorf("got run %+v, want copy.go:16-26, upstream up.go:7-16", r)
			}
			if r.marked != tc.wantMarked {
				t.Errorf("marked = %v, want %v", r.marked, tc.wantMarked)
			}
		})
	}
}

func TestNoRunBelowWindow(t *testing.T) {
	// Five of the six lines, then one that differs in a name.
	src := `package netfork

func f() {
	leases, err := NewLeases(config, prefix, ttl)
	adapter := NewEndpointsAdapter(endpoints, slices)
	ttl = config.TTL + config.Interval
	name := fmt.Sprintf("%s/%s", prefix, config.Name)
	thing := &Thing{leases: leases, adapter: adapter, name: name}
	thing.begin()
}
`
	if got := matchRuns(src); len(got) != 0 {
		t.Errorf("got runs %+v for five matching lines, want none", got)
	}
}

func TestScanAll(t *testing.T) {
	dir := t.TempDir()
	var files []source
	for i := range 20 {
		p := filepath.Join(dir, fmt.Sprintf("f%d.go", i))
		src := upstreamSrc + strings.Repeat("\nvar x"+strconv.Itoa(i)+" = 1\n", i)
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, source{name: fmt.Sprintf("f%d.go", i), path: p})
	}
	got, err := scanAll(files, 6)
	if err != nil {
		t.Fatalf("scanAll: %v", err)
	}
	for i, f := range files {
		src, _ := os.ReadFile(f.path)
		want := windows(significantLines(f.name, src), 6)
		if got[i].src != f || !reflect.DeepEqual(got[i].windows, want) {
			t.Errorf("file %d: got %s with %d windows, want %s with %d", i, got[i].src.name, len(got[i].windows), f.name, len(want))
		}
	}
	if _, err := scanAll(append(files, source{name: "gone.go", path: filepath.Join(dir, "gone.go")}), 6); err == nil {
		t.Error("scanAll of a missing file succeeded, want its error")
	}
}
