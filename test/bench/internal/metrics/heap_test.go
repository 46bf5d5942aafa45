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
	"bytes"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// heapProfileBytes encodes a heap profile with the sample types Go's runtime writes and
// one sample per (alloc, inuse) pair of byte counts.
func heapProfileBytes(t *testing.T, types []string, samples ...[2]int64) []byte {
	t.Helper()
	p := &profile.Profile{PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"}}
	for _, typ := range types {
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: typ, Unit: "bytes"})
	}
	fn := &profile.Function{ID: 1, Name: "main.f"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn}}}
	p.Function, p.Location = []*profile.Function{fn}, []*profile.Location{loc}
	for _, s := range samples {
		values := make([]int64, len(types))
		for i, typ := range types {
			switch typ {
			case "alloc_space":
				values[i] = s[0]
			case "inuse_space":
				values[i] = s[1]
			}
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc}, Value: values})
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestParseHeapSumsInuseAndAllocSpace(t *testing.T) {
	data := heapProfileBytes(t, []string{"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"}, [2]int64{1000, 300}, [2]int64{24, 20})
	h, err := parseHeap(data)
	if err != nil {
		t.Fatal(err)
	}
	if h.Alloc != 1024 || h.Inuse != 320 {
		t.Errorf("parseHeap = %+v, want alloc 1024 and inuse 320", h)
	}
}

func TestParseHeapNamesWhatIsMissing(t *testing.T) {
	if _, err := parseHeap(heapProfileBytes(t, []string{"samples", "cpu"}, [2]int64{1, 1})); err == nil || !strings.Contains(err.Error(), "no inuse_space and alloc_space") {
		t.Errorf("a CPU profile parsed as a heap profile: %v", err)
	}
	if _, err := parseHeap([]byte("not a profile")); err == nil || !strings.Contains(err.Error(), "heap profile") {
		t.Errorf("garbage parsed as a heap profile: %v", err)
	}
}

func TestPerServiceKB(t *testing.T) {
	if got := PerServiceKB(1<<20, 3<<20, 1024); got != 2 {
		t.Errorf("2 MiB over 1024 Services = %.2f KB each, want 2", got)
	}
	if got := PerServiceKB(0, 1, 0); got != 0 {
		t.Errorf("no Services = %.2f KB each, want 0", got)
	}
}
