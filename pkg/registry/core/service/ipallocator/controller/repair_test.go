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
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"

	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/pkg/registry/core/service/internal/registrytest"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
)

func TestRepairPass(t *testing.T) {
	const (
		v4CIDR = "10.0.0.0/24"
		v6CIDR = "fd00::/120"
	)
	tests := []struct {
		name          string
		primaryCIDR   string
		primary       func(t *testing.T) *registrytest.Bitmap
		secondaryCIDR string
		secondary     func(t *testing.T) *registrytest.Bitmap
		services      []runtime.Object

		wantPrimary   []string
		wantSecondary []string
		// wantWrites is how many bitmaps the pass writes.
		wantWrites int
		wantEvents []registrytest.Event
		wantErrors map[string]float64
	}{
		{
			name:        "bitmap in sync",
			primaryCIDR: v4CIDR,
			primary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v4CIDR, "10.0.0.10", "10.0.0.11") },
			services:    []runtime.Object{newService("a", "10.0.0.10"), newService("b", "10.0.0.11")},
			wantPrimary: []string{"10.0.0.10", "10.0.0.11"},
		},
		{
			name:        "missing allocation is repaired",
			primaryCIDR: v4CIDR,
			primary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v4CIDR, "10.0.0.10") },
			services:    []runtime.Object{newService("a", "10.0.0.10"), newService("b", "10.0.0.20")},
			wantPrimary: []string{"10.0.0.10", "10.0.0.20"},
			wantWrites:  1,
			wantEvents: []registrytest.Event{warning("b", "ClusterIPNotAllocated", "ClusterIPAllocation",
				"Cluster IP [IPv4]:10.0.0.20 is not allocated; repairing")},
			wantErrors: map[string]float64{"repair": 1},
		},
		{
			name:        "leaked IP is held on its first pass",
			primaryCIDR: v4CIDR,
			primary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v4CIDR, "10.0.0.10", "10.0.0.99") },
			services:    []runtime.Object{newService("a", "10.0.0.10")},
			wantPrimary: []string{"10.0.0.10", "10.0.0.99"},
		},
		{
			name:        "ClusterIP out of range",
			primaryCIDR: v4CIDR,
			primary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v4CIDR, "10.0.0.10") },
			services:    []runtime.Object{newService("a", "10.0.0.10"), newService("b", "10.1.0.1")},
			wantPrimary: []string{"10.0.0.10"},
			wantEvents: []registrytest.Event{warning("b", "ClusterIPOutOfRange", "ClusterIPAllocation",
				"Cluster IP [IPv4]:10.1.0.1 is not within the service CIDR 10.0.0.0/24; please recreate service")},
			wantErrors: map[string]float64{"outOfRange": 1},
		},
		{
			name:        "network address is out of range",
			primaryCIDR: v4CIDR,
			primary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v4CIDR) },
			services:    []runtime.Object{newService("a", "10.0.0.0")},
			wantEvents: []registrytest.Event{warning("a", "ClusterIPOutOfRange", "ClusterIPAllocation",
				"Cluster IP [IPv4]:10.0.0.0 is not within the service CIDR 10.0.0.0/24; please recreate service")},
			wantErrors: map[string]float64{"outOfRange": 1},
		},
		{
			name:        "two Services with the same ClusterIP",
			primaryCIDR: v4CIDR,
			primary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v4CIDR, "10.0.0.10") },
			services:    []runtime.Object{newService("a", "10.0.0.10"), newService("b", "10.0.0.10")},
			wantPrimary: []string{"10.0.0.10"},
			wantEvents: []registrytest.Event{warning("b", "ClusterIPAlreadyAllocated", "ClusterIPAllocation",
				"Cluster IP [IPv4]:10.0.0.10 was assigned to multiple services; please recreate service")},
			wantErrors: map[string]float64{"duplicate": 1},
		},
		{
			name:        "ClusterIP of a family the cluster does not serve",
			primaryCIDR: v4CIDR,
			primary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v4CIDR) },
			services:    []runtime.Object{newService("a", "fd00::10")},
			wantEvents: []registrytest.Event{warning("a", "ClusterIPNotValid", "ClusterIPValidation",
				"Cluster IP fd00::10(IPv6) is of ip family that is no longer configured on cluster; please recreate service")},
			wantErrors: map[string]float64{"invalid": 1},
		},
		{
			name:        "ClusterIP that is not an IP",
			primaryCIDR: v4CIDR,
			primary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v4CIDR) },
			services:    []runtime.Object{newService("a", "10.0.0.300")},
			wantEvents: []registrytest.Event{warning("a", "ClusterIPNotValid", "ClusterIPValidation",
				"Cluster IP 10.0.0.300 is not a valid IP; please recreate service")},
			wantErrors: map[string]float64{"invalid": 1},
		},
		{
			name:        "headless and ExternalName Services hold no ClusterIP",
			primaryCIDR: v4CIDR,
			primary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v4CIDR) },
			services: []runtime.Object{
				newService("headless", corev1.ClusterIPNone),
				&corev1.Service{
					ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "external"},
					Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.com"},
				},
			},
		},
		{
			name:        "bitmap never written is created",
			primaryCIDR: v4CIDR,
			primary:     func(*testing.T) *registrytest.Bitmap { return &registrytest.Bitmap{} },
			services:    []runtime.Object{newService("a", "10.0.0.10")},
			wantPrimary: []string{"10.0.0.10"},
			wantWrites:  1,
			wantEvents: []registrytest.Event{warning("a", "ClusterIPNotAllocated", "ClusterIPAllocation",
				"Cluster IP [IPv4]:10.0.0.10 is not allocated; repairing")},
			wantErrors: map[string]float64{"repair": 1},
		},
		{
			name:        "empty bitmap never written is created",
			primaryCIDR: v4CIDR,
			primary:     func(*testing.T) *registrytest.Bitmap { return &registrytest.Bitmap{} },
			wantWrites:  1,
		},
		{
			name:        "corrupt stored bitmap is rebuilt from the Services",
			primaryCIDR: v4CIDR,
			primary: func(t *testing.T) *registrytest.Bitmap {
				f := newBitmap(t, v4CIDR, "10.0.0.10")
				f.Stored.Range = "not-a-cidr"
				return f
			},
			services:    []runtime.Object{newService("a", "10.0.0.10")},
			wantPrimary: []string{"10.0.0.10"},
			wantWrites:  1,
			wantEvents: []registrytest.Event{warning("a", "ClusterIPNotAllocated", "ClusterIPAllocation",
				"Cluster IP [IPv4]:10.0.0.10 is not allocated; repairing")},
			wantErrors: map[string]float64{"repair": 1},
		},
		{
			name:        "bitmap of another range is replaced",
			primaryCIDR: v4CIDR,
			primary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, "10.0.1.0/24", "10.0.1.10") },
			services:    []runtime.Object{newService("a", "10.0.0.10")},
			wantPrimary: []string{"10.0.0.10"},
			wantWrites:  1,
			wantEvents: []registrytest.Event{warning("a", "ClusterIPNotAllocated", "ClusterIPAllocation",
				"Cluster IP [IPv4]:10.0.0.10 is not allocated; repairing")},
			wantErrors: map[string]float64{"repair": 1},
		},
		{
			name:          "dual-stack: each family to its own bitmap",
			primaryCIDR:   v4CIDR,
			primary:       func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v4CIDR, "10.0.0.10") },
			secondaryCIDR: v6CIDR,
			secondary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v6CIDR) },
			services: []runtime.Object{
				newService("a", "10.0.0.10", "fd00::10"),
				newService("b", "fd00::20"),
			},
			wantPrimary:   []string{"10.0.0.10"},
			wantSecondary: []string{"fd00::10", "fd00::20"},
			wantWrites:    1,
			wantEvents: []registrytest.Event{
				warning("a", "ClusterIPNotAllocated", "ClusterIPAllocation", "Cluster IP [IPv6]:fd00::10 is not allocated; repairing"),
				warning("b", "ClusterIPNotAllocated", "ClusterIPAllocation", "Cluster IP [IPv6]:fd00::20 is not allocated; repairing"),
			},
			wantErrors: map[string]float64{"repair": 2},
		},
		{
			name:          "dual-stack: secondary bitmap never written is created over the secondary range",
			primaryCIDR:   v6CIDR,
			primary:       func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v6CIDR, "fd00::10") },
			secondaryCIDR: v4CIDR,
			secondary:     func(*testing.T) *registrytest.Bitmap { return &registrytest.Bitmap{} },
			services:      []runtime.Object{newService("a", "fd00::10", "10.0.0.10")},
			wantPrimary:   []string{"fd00::10"},
			wantSecondary: []string{"10.0.0.10"},
			wantWrites:    1,
			wantEvents: []registrytest.Event{warning("a", "ClusterIPNotAllocated", "ClusterIPAllocation",
				"Cluster IP [IPv4]:10.0.0.10 is not allocated; repairing")},
			wantErrors: map[string]float64{"repair": 1},
		},
		{
			name:          "dual-stack: secondary bitmap stored over the primary range (#127588) is replaced",
			primaryCIDR:   v4CIDR,
			primary:       func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v4CIDR, "10.0.0.10") },
			secondaryCIDR: v6CIDR,
			secondary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v4CIDR, "10.0.0.10") },
			services:      []runtime.Object{newService("a", "10.0.0.10", "fd00::10")},
			wantPrimary:   []string{"10.0.0.10"},
			wantSecondary: []string{"fd00::10"},
			wantWrites:    1,
			wantEvents: []registrytest.Event{warning("a", "ClusterIPNotAllocated", "ClusterIPAllocation",
				"Cluster IP [IPv6]:fd00::10 is not allocated; repairing")},
			wantErrors: map[string]float64{"repair": 1},
		},
		{
			// The bitmap keeps 2^16 addresses of a larger range, as upstream's; an
			// address past them (#129797) is reported out of range, in upstream's words.
			name:        "IPv6 ClusterIP past the addresses a bitmap keeps",
			primaryCIDR: "fd00::/64",
			primary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, "fd00::/64", "fd00::10") },
			services:    []runtime.Object{newService("a", "fd00::10"), newService("b", "fd00::1:0:0:1")},
			wantPrimary: []string{"fd00::10"},
			wantEvents: []registrytest.Event{warning("b", "ClusterIPOutOfRange", "ClusterIPAllocation",
				"Cluster IP [IPv6]:fd00::1:0:0:1 is not within the service CIDR fd00::/64; please recreate service")},
			wantErrors: map[string]float64{"outOfRange": 1},
		},
		{
			name:          "dual-stack: out-of-range secondary ClusterIP",
			primaryCIDR:   v4CIDR,
			primary:       func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v4CIDR, "10.0.0.10") },
			secondaryCIDR: v6CIDR,
			secondary:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, v6CIDR) },
			services:      []runtime.Object{newService("a", "10.0.0.10", "fd01::10")},
			wantPrimary:   []string{"10.0.0.10"},
			wantEvents: []registrytest.Event{warning("a", "ClusterIPOutOfRange", "ClusterIPAllocation",
				"Cluster IP [IPv6]:fd01::10 is not within the service CIDR fd00::/120; please recreate service")},
			wantErrors: map[string]float64{"outOfRange": 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			primary := tc.primary(t)
			var secondary *registrytest.Bitmap
			if tc.secondary != nil {
				secondary = tc.secondary(t)
			}
			client := fake.NewClientset(tc.services...)
			r, rec := newTestRepair(t, client, tc.primaryCIDR, primary, tc.secondaryCIDR, secondary)

			if err := r.runOnce(context.Background()); err != nil {
				t.Fatalf("runOnce: %v", err)
			}

			writes := primary.Writes
			gotRange, gotPrimary := storedIPs(t, primary)
			if wantRange := mustCIDR(t, tc.primaryCIDR).String(); gotRange != wantRange {
				t.Errorf("primary bitmap range = %q, want %q", gotRange, wantRange)
			}
			if !slices.Equal(gotPrimary, tc.wantPrimary) {
				t.Errorf("primary bitmap = %v, want %v", gotPrimary, tc.wantPrimary)
			}
			if secondary != nil {
				writes += secondary.Writes
				gotRange, gotSecondary := storedIPs(t, secondary)
				if want := mustCIDR(t, tc.secondaryCIDR).String(); gotRange != want {
					t.Errorf("secondary bitmap range = %q, want %q", gotRange, want)
				}
				if !slices.Equal(gotSecondary, tc.wantSecondary) {
					t.Errorf("secondary bitmap = %v, want %v", gotSecondary, tc.wantSecondary)
				}
			}
			if writes != tc.wantWrites {
				t.Errorf("bitmap writes = %d, want %d", writes, tc.wantWrites)
			}
			if got := rec.Recorded(); !slices.Equal(got, tc.wantEvents) {
				t.Errorf("events:\n got %+v\nwant %+v", got, tc.wantEvents)
			}
			if got := ipErrors(t); !maps.Equal(got, tc.wantErrors) {
				t.Errorf("ip_errors_total = %v, want %v", got, tc.wantErrors)
			}
			if got := reconcileErrors(t); got != 0 {
				t.Errorf("reconcile_errors_total = %v, want 0", got)
			}
		})
	}
}

func TestRepairLeakGrace(t *testing.T) {
	const cidr = "10.0.0.0/24"
	for _, tc := range registrytest.LeakGraceCases() {
		t.Run(tc.Name, func(t *testing.T) {
			bitmap := newBitmap(t, cidr, "10.0.0.10", "10.0.0.99")
			client := fake.NewClientset(newService("a", "10.0.0.10"))
			r, rec := newTestRepair(t, client, cidr, bitmap, "", nil)
			registrytest.LeakGrace{
				Client: client,
				Taker:  newService("taker", "10.0.0.99"),
				Pass:   r.runOnce,
				Held: func() (bool, bool) {
					_, ips := storedIPs(t, bitmap)
					return slices.Contains(ips, "10.0.0.99"), slices.Contains(ips, "10.0.0.10")
				},
				Leaks: func() float64 { return ipErrors(t)[errorTypeLeak] },
			}.Run(t, tc.Steps)
			if got := rec.Recorded(); len(got) != 0 {
				t.Errorf("leaks recorded events %v, want none", got)
			}
		})
	}
}

func TestRepairConflictingWrite(t *testing.T) {
	const cidr = "10.0.0.0/24"
	bitmap := newBitmap(t, cidr)
	bitmap.WriteErrs = []error{registrytest.ErrConflict}
	client := fake.NewClientset(newService("a", "10.0.0.10"))
	r, _ := newTestRepair(t, client, cidr, bitmap, "", nil)

	registrytest.RunFirstPass(t, r)

	if _, ips := storedIPs(t, bitmap); !slices.Contains(ips, "10.0.0.10") {
		t.Errorf("bitmap = %v, want 10.0.0.10 allocated after the conflict was retried", ips)
	}
	if got := reconcileErrors(t); got != 1 {
		t.Errorf("reconcile_errors_total = %v, want 1", got)
	}
}

func TestRunUntilRetriesTransientFirstPassErrors(t *testing.T) {
	const cidr = "10.0.0.0/24"
	for _, tc := range registrytest.FirstPassErrors() {
		t.Run(tc.Name, func(t *testing.T) {
			bitmap := newBitmap(t, cidr)
			bitmap.GetErrs = tc.GetErrs
			client := fake.NewClientset(newService("a", "10.0.0.10"))
			registrytest.FailLists(client, tc.ListErrs)
			r, rec := newTestRepair(t, client, cidr, bitmap, "", nil)

			registrytest.RunFirstPass(t, r)

			if _, ips := storedIPs(t, bitmap); !slices.Contains(ips, "10.0.0.10") {
				t.Errorf("bitmap = %v, want 10.0.0.10 allocated", ips)
			}
			if got := reconcileErrors(t); got != tc.WantFailures {
				t.Errorf("reconcile_errors_total = %v, want %v", got, tc.WantFailures)
			}
			if got := len(rec.Recorded()); got != 1 {
				t.Errorf("recorded %d events, want 1 ClusterIPNotAllocated", got)
			}
		})
	}
}

func TestRunUntilStops(t *testing.T) {
	const cidr = "10.0.0.0/24"
	client := fake.NewClientset()
	var lists atomic.Int32
	client.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		lists.Add(1)
		return true, nil, apierrors.NewServiceUnavailable("never ready")
	})
	r, _ := newTestRepair(t, client, cidr, newBitmap(t, cidr), "", nil)

	// three failed attempts: a loop that took a failed pass for a success had its chance to say so
	if registrytest.RunUntilTried(t, r, func() bool { return lists.Load() >= 3 }) {
		t.Error("onFirstSuccess called although every pass failed")
	}
	if got := reconcileErrors(t); got < 1 {
		t.Errorf("reconcile_errors_total = %v, want the failed passes counted", got)
	}
}

func TestRepairEventsReachTheAPI(t *testing.T) {
	const cidr = "10.0.0.0/24"
	client := fake.NewClientset(newService("a", "10.1.0.1"))
	r := newBitmapRepair(Config{Interval: time.Hour, Client: client, PrimaryRange: *mustCIDR(t, cidr), PrimaryBitmap: newBitmap(t, cidr)})
	r.firstPassBackoff = registrytest.FastBackoff

	registrytest.WantEvents(t, r, client, "Warning|ClusterIPOutOfRange|ClusterIPAllocation|Service|a|ipallocator-repair-controller|"+
		"Cluster IP [IPv4]:10.1.0.1 is not within the service CIDR 10.0.0.0/24; please recreate service")
}

func TestRepairMetricsExported(t *testing.T) {
	const cidr = "10.0.0.0/24"
	client := fake.NewClientset(newService("a", "10.0.0.10"), newService("b", "10.0.0.10"))
	r, _ := newTestRepair(t, client, cidr, newBitmap(t, cidr, "10.0.0.10"), "", nil)
	if err := r.runOnce(context.Background()); err != nil {
		t.Fatalf("runOnce: %v", err)
	}
	clusterIPRepairReconcileErrors.Inc()

	want := `
# HELP apiserver_clusterip_repair_ip_errors_total [ALPHA] Number of errors detected on clusterips by the repair loop broken down by type of error: leak, repair, full, outOfRange, duplicate, unknown, invalid
# TYPE apiserver_clusterip_repair_ip_errors_total counter
apiserver_clusterip_repair_ip_errors_total{type="duplicate"} 1
# HELP apiserver_clusterip_repair_reconcile_errors_total [ALPHA] Number of reconciliation failures on the clusterip repair reconcile loop
# TYPE apiserver_clusterip_repair_reconcile_errors_total counter
apiserver_clusterip_repair_reconcile_errors_total 1
`
	if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want),
		"apiserver_clusterip_repair_ip_errors_total", "apiserver_clusterip_repair_reconcile_errors_total"); err != nil {
		t.Error(err)
	}
}

func TestNewRepair(t *testing.T) {
	client := fake.NewClientset()
	c := Config{
		Interval:      time.Hour,
		Client:        client,
		Informers:     informers.NewSharedInformerFactory(client, 0),
		IPAddresses:   ipaddressindex.New(client),
		PrimaryRange:  *mustCIDR(t, "10.0.0.0/24"),
		PrimaryBitmap: &registrytest.Bitmap{},
	}
	tests := []struct {
		name       string
		allocation features.ClusterIPAllocation
		want       Runner
	}{
		{name: "bitmap mode repairs netfork's bitmaps", allocation: features.Bitmaps, want: &Repair{}},
		{name: "multi-CIDR mode repairs IPAddresses", allocation: features.IPAddresses, want: &RepairIPAddress{}},
		{name: "dual-write mode repairs IPAddresses", allocation: features.IPAddressesDualWrite, want: &RepairIPAddress{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := c
			c.Allocation = tc.allocation
			got := NewRepair(c)
			if gotType, wantType := fmt.Sprintf("%T", got), fmt.Sprintf("%T", tc.want); gotType != wantType {
				t.Errorf("NewRepair = %s, want %s", gotType, wantType)
			}
		})
	}
}
