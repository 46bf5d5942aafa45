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

package storage

import (
	"strings"
	"testing"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
)

// badDataMessage starts the line reportBadData logs.
const badDataMessage = "Stored data marks values past the end of the range"

// TestBadDataIsReportedAgainstTheMapsSize reads a /20 bitmap that upstream's
// allocator wrote (4094 offsets, the highest set one 4006, so 4007 bits) through
// bindings of several sizes: only one whose map is smaller than the stored bits
// reports bad data, and it does so once per stored version. A binding of one
// offset is how the IPAddress apiserver once read the bitmap a bitmap-only one
// wrote, which logged "size=1 bits=4007" for a healthy bitmap.
func TestBadDataIsReportedAgainstTheMapsSize(t *testing.T) {
	const rangeSpec = "10.104.0.0/20"
	upstream := upstreamallocator.NewAllocationMapWithOffset(4094, rangeSpec, 64)
	for _, o := range []int{3, 4006} {
		if ok, err := upstream.Allocate(o); !ok || err != nil {
			t.Fatalf("upstream Allocate(%d) = %v, %v", o, ok, err)
		}
	}
	_, data := upstream.Snapshot()
	if ok, err := upstream.Allocate(5); !ok || err != nil {
		t.Fatalf("upstream Allocate(5) = %v, %v", ok, err)
	}
	_, next := upstream.Snapshot()
	tests := []struct {
		name string
		size int
		// want is the report's size and bits values, "" for none.
		want string
	}{
		{name: "the writer's size", size: 4094},
		{name: "just holds the highest offset", size: 4007},
		{name: "one offset short", size: 4006, want: "size=4006 bits=4007"},
		{name: "a one-offset reader", size: 1, want: "size=1 bits=4007"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStorage(t)
			s.seed(t, &api.RangeAllocation{Range: rangeSpec, Data: data})
			e := s.newBinding(t, tc.size, 0, rangeSpec)
			logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
			e.logger = logger
			stored(t, e)
			stored(t, e) // the same version: reported once at most
			got := badDataReports(logger)
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("reading 4007 bits with a map of %d offsets logged %q", tc.size, got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("reports %q, want one with %s", got, tc.want)
			}
			if tc.want == "" {
				return
			}
			// A new stored version is reported again.
			if err := e.CreateOrUpdate(&api.RangeAllocation{ObjectMeta: stored(t, e).ObjectMeta, Range: rangeSpec, Data: next}); err != nil {
				t.Fatalf("CreateOrUpdate: %v", err)
			}
			stored(t, e)
			if got := badDataReports(logger); len(got) != 2 {
				t.Errorf("%d reports after the object was rewritten, want 2: %q", len(got), got)
			}
		})
	}
}

// badDataReports are the lines of logger's output that report bad data.
func badDataReports(logger klog.Logger) []string {
	var out []string
	for _, line := range strings.Split(logger.GetSink().(ktesting.Underlier).GetBuffer().String(), "\n") {
		if strings.Contains(line, badDataMessage) {
			out = append(out, line)
		}
	}
	return out
}
