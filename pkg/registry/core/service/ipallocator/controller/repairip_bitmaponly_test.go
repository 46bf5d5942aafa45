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

package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/rangeallocation"
)

// TestRepairIPAddressDetectsBitmapOnlyAPIServer runs the IPAddress repair loop
// of an apiserver that does not mirror IPAddresses in the bitmaps and makes it
// repair a Service with no IPAddress: only when the Service is newer than the
// loop and its ClusterIP is set in the bitmap, that is, when a bitmap-only
// apiserver allocated it, does the loop warn, once per interval.
func TestRepairIPAddressDetectsBitmapOnlyAPIServer(t *testing.T) {
	const ip = "10.0.0.10"
	ctx := context.Background()
	repaired := fmt.Sprintf("Service default/%%s %s: Cluster IP [IPv4]: %%s is not allocated; repairing", reasonNotAllocated)
	detected := fmt.Sprintf("Service default/%%s %s: Cluster IP [IPv4]: %%s was allocated by an apiserver that writes only the legacy bitmaps, "+
		"while this apiserver allocates IPAddresses without writing them, so the two can give one ClusterIP to two Services; "+
		"run every apiserver that allocates IPAddresses with --feature-gates=DisableAllocatorDualWrite=false until no bitmap-only apiserver is left", reasonBitmapOnlyAPIServer)
	tests := []struct {
		name string
		// bitmapIPs are set in the legacy bitmap; nil means no bitmap is read (dual-write or bitmap mode).
		bitmapIPs []string
		created   time.Time
		// startedAfter moves the apiserver's start that far past testNow.
		startedAfter time.Duration
		// others are Services repaired right after, within the same interval.
		others     []string
		wantEvents []string
		wantErrors map[string]float64
	}{{
		name:       "a bitmap-only apiserver allocated a new Service's ClusterIP",
		bitmapIPs:  []string{ip},
		created:    testNow.Add(time.Second),
		wantEvents: []string{fmt.Sprintf(repaired, "a", ip), fmt.Sprintf(detected, "a", ip)},
		wantErrors: map[string]float64{errorTypeRepair: 1, errorTypeBitmapOnly: 1},
	}, {
		name:      "more within one interval: counted, reported once",
		bitmapIPs: []string{ip, "10.0.0.11", "10.0.0.12"},
		created:   testNow.Add(time.Second),
		others:    []string{"10.0.0.11", "10.0.0.12"},
		wantEvents: []string{fmt.Sprintf(repaired, "a", ip), fmt.Sprintf(detected, "a", ip),
			fmt.Sprintf(repaired, "b", "10.0.0.11"), fmt.Sprintf(repaired, "c", "10.0.0.12")},
		wantErrors: map[string]float64{errorTypeRepair: 3, errorTypeBitmapOnly: 3},
	}, {
		name:         "a Service created in the second the apiserver started: its creationTimestamp has whole seconds",
		bitmapIPs:    []string{ip},
		created:      testNow,
		startedAfter: 500 * time.Millisecond,
		wantEvents:   []string{fmt.Sprintf(repaired, "a", ip), fmt.Sprintf(detected, "a", ip)},
		wantErrors:   map[string]float64{errorTypeRepair: 1, errorTypeBitmapOnly: 1},
	}, {
		name:       "the ClusterIP is not in the bitmap: an IPAddress deleted by hand, no bitmap writer",
		bitmapIPs:  []string{},
		created:    testNow.Add(time.Second),
		wantEvents: []string{fmt.Sprintf(repaired, "a", ip)},
		wantErrors: map[string]float64{errorTypeRepair: 1},
	}, {
		name:       "a Service from before the apiserver started: a migration from the bitmaps",
		bitmapIPs:  []string{ip},
		created:    testNow.Add(-time.Minute),
		wantEvents: []string{fmt.Sprintf(repaired, "a", ip)},
		wantErrors: map[string]float64{errorTypeRepair: 1},
	}, {
		name:       "this apiserver writes the bitmaps (dual-write): the mix is KEP-1880's migration",
		created:    testNow.Add(time.Second),
		wantEvents: []string{fmt.Sprintf(repaired, "a", ip)},
		wantErrors: map[string]float64{errorTypeRepair: 1},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			services := map[string]string{"a": ip}
			for i, other := range tc.others {
				services[string(rune('b'+i))] = other
			}
			objs := defaultCIDRs()
			for name, clusterIP := range services {
				svc := withUID(newService(name, clusterIP))
				svc.CreationTimestamp = metav1.NewTime(tc.created)
				objs = append(objs, svc)
			}
			f := newIPFixture(t, objs...)
			f.clock.SetTime(testNow.Add(tc.startedAfter))
			if tc.bitmapIPs != nil {
				f.r.bitmapOnly = newBitmapOnlyDetector(Config{
					Interval:      time.Hour,
					LegacyBitmaps: map[api.IPFamily]rangeallocation.RangeRegistry{api.IPv4Protocol: newBitmap(t, "10.0.0.0/24", tc.bitmapIPs...)},
				}, f.clock)
			}
			for _, name := range []string{"a", "b", "c"} {
				if _, ok := services[name]; !ok {
					continue
				}
				if err := f.r.syncService(ctx, "default/"+name); err != nil {
					t.Fatalf("syncService %s: %v", name, err)
				}
			}
			checkReported(t, f, tc.wantEvents, tc.wantErrors)
		})
	}
}

// TestBitmapOnlyReportedAgainAfterAnInterval checks the warning comes back
// once the interval has passed while the mix goes on.
func TestBitmapOnlyReportedAgainAfterAnInterval(t *testing.T) {
	ctx := context.Background()
	objs := defaultCIDRs()
	for _, s := range []struct{ name, ip string }{{"a", "10.0.0.10"}, {"b", "10.0.0.11"}} {
		svc := withUID(newService(s.name, s.ip))
		svc.CreationTimestamp = metav1.NewTime(testNow.Add(time.Second))
		objs = append(objs, svc)
	}
	f := newIPFixture(t, objs...)
	f.r.bitmapOnly = newBitmapOnlyDetector(Config{
		Interval:      time.Minute,
		LegacyBitmaps: map[api.IPFamily]rangeallocation.RangeRegistry{api.IPv4Protocol: newBitmap(t, "10.0.0.0/24", "10.0.0.10", "10.0.0.11")},
	}, f.clock)
	if err := f.r.syncService(ctx, "default/a"); err != nil {
		t.Fatal(err)
	}
	f.clock.Step(time.Minute)
	if err := f.r.syncService(ctx, "default/b"); err != nil {
		t.Fatal(err)
	}
	var warned []string
	for _, e := range f.events.recorded() {
		if strings.Contains(e, " "+reasonBitmapOnlyAPIServer+": ") {
			warned = append(warned, e)
		}
	}
	if len(warned) != 2 {
		t.Errorf("%d %s events an interval apart, want 2: %v", len(warned), reasonBitmapOnlyAPIServer, f.events.recorded())
	}
}
