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
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/registrytest"
)

func TestRepairPass(t *testing.T) {
	tests := []struct {
		name     string
		bitmap   func(t *testing.T) *registrytest.Bitmap
		services []runtime.Object

		wantPorts  []int
		wantWrites int
		wantEvents []registrytest.Event
		wantErrors map[string]float64
	}{
		{
			name:      "bitmap in sync",
			bitmap:    func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, testRange, 30001, 30002) },
			services:  []runtime.Object{newService("a", 30001), newService("b", 30002)},
			wantPorts: []int{30001, 30002},
		},
		{
			name:       "missing allocation is repaired",
			bitmap:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, testRange, 30001) },
			services:   []runtime.Object{newService("a", 30001), newService("b", 30002)},
			wantPorts:  []int{30001, 30002},
			wantWrites: 1,
			wantEvents: []registrytest.Event{warning("b", "PortNotAllocated", "Port 30002 is not allocated; repairing")},
			wantErrors: map[string]float64{"repair": 1},
		},
		{
			name:      "leaked port is held on its first pass",
			bitmap:    func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, testRange, 30001, 32000) },
			services:  []runtime.Object{newService("a", 30001)},
			wantPorts: []int{30001, 32000},
		},
		{
			name:      "NodePort outside the range",
			bitmap:    func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, testRange, 30001) },
			services:  []runtime.Object{newService("a", 30001, 8080)},
			wantPorts: []int{30001},
			wantEvents: []registrytest.Event{warning("a", "PortOutOfRange",
				"Port 8080 is not within the port range 30000-32767; please recreate service")},
			wantErrors: map[string]float64{"outOfRange": 1},
		},
		{
			name:      "two Services with the same NodePort",
			bitmap:    func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, testRange, 30001) },
			services:  []runtime.Object{newService("a", 30001), newService("b", 30001)},
			wantPorts: []int{30001},
			wantEvents: []registrytest.Event{warning("b", "PortAlreadyAllocated",
				"Port 30001 was assigned to multiple services; please recreate service")},
			wantErrors: map[string]float64{"duplicate": 1},
		},
		{
			name:      "one Service with the same NodePort twice on one protocol",
			bitmap:    func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, testRange, 30001) },
			services:  []runtime.Object{newService("a", 30001, 30001)},
			wantPorts: []int{30001},
			wantEvents: []registrytest.Event{warning("a", "PortAlreadyAllocated",
				"Port 30001 was assigned to multiple services; please recreate service")},
			wantErrors: map[string]float64{"duplicate": 1},
		},
		{
			name:   "one NodePort on TCP and UDP is one allocation",
			bitmap: func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, testRange, 30053) },
			services: []runtime.Object{func() *corev1.Service {
				svc := newService("dns", 30053, 30053)
				svc.Spec.Ports[1].Protocol = corev1.ProtocolUDP
				return svc
			}()},
			wantPorts: []int{30053},
		},
		{
			name:       "health-check node port is repaired",
			bitmap:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, testRange, 30001) },
			services:   []runtime.Object{withHealthCheck(newService("lb", 30001), 30002)},
			wantPorts:  []int{30001, 30002},
			wantWrites: 1,
			wantEvents: []registrytest.Event{warning("lb", "PortNotAllocated", "Port 30002 is not allocated; repairing")},
			wantErrors: map[string]float64{"repair": 1},
		},
		{
			name:      "health-check node port taken by another Service",
			bitmap:    func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, testRange, 30001, 30002) },
			services:  []runtime.Object{newService("a", 30002), withHealthCheck(newService("lb", 30001), 30002)},
			wantPorts: []int{30001, 30002},
			wantEvents: []registrytest.Event{warning("lb", "PortAlreadyAllocated",
				"Port 30002 was assigned to multiple services; please recreate service")},
			wantErrors: map[string]float64{"duplicate": 1},
		},
		{
			name:     "Services without node ports hold nothing",
			bitmap:   func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, testRange) },
			services: []runtime.Object{newService("clusterip")},
		},
		{
			name:       "bitmap never written is created",
			bitmap:     func(*testing.T) *registrytest.Bitmap { return &registrytest.Bitmap{} },
			services:   []runtime.Object{newService("a", 30001)},
			wantPorts:  []int{30001},
			wantWrites: 1,
			wantEvents: []registrytest.Event{warning("a", "PortNotAllocated", "Port 30001 is not allocated; repairing")},
			wantErrors: map[string]float64{"repair": 1},
		},
		{
			name: "corrupt stored bitmap is rebuilt from the Services",
			bitmap: func(t *testing.T) *registrytest.Bitmap {
				f := newBitmap(t, testRange, 30001)
				f.Stored.Range = "not-a-range"
				return f
			},
			services:   []runtime.Object{newService("a", 30001)},
			wantPorts:  []int{30001},
			wantWrites: 1,
			wantEvents: []registrytest.Event{warning("a", "PortNotAllocated", "Port 30001 is not allocated; repairing")},
			wantErrors: map[string]float64{"repair": 1},
		},
		{
			// 31001 is in the new range too: it is held as a possible leak.
			name:       "bitmap of another range is replaced",
			bitmap:     func(t *testing.T) *registrytest.Bitmap { return newBitmap(t, "31000-31100", 31001) },
			services:   []runtime.Object{newService("a", 30001)},
			wantPorts:  []int{30001, 31001},
			wantWrites: 1,
			wantEvents: []registrytest.Event{warning("a", "PortNotAllocated", "Port 30001 is not allocated; repairing")},
			wantErrors: map[string]float64{"repair": 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bitmap := tc.bitmap(t)
			r, rec := newTestRepair(t, fake.NewClientset(tc.services...), bitmap)

			if err := r.runOnce(context.Background()); err != nil {
				t.Fatalf("runOnce: %v", err)
			}

			gotRange, gotPorts := storedPorts(t, bitmap)
			if gotRange != testRange {
				t.Errorf("bitmap range = %q, want %q", gotRange, testRange)
			}
			if !slices.Equal(gotPorts, tc.wantPorts) {
				t.Errorf("bitmap = %v, want %v", gotPorts, tc.wantPorts)
			}
			if bitmap.Writes != tc.wantWrites {
				t.Errorf("bitmap writes = %d, want %d", bitmap.Writes, tc.wantWrites)
			}
			if got := rec.Recorded(); !slices.Equal(got, tc.wantEvents) {
				t.Errorf("events:\n got %+v\nwant %+v", got, tc.wantEvents)
			}
			if got := portErrors(t); !maps.Equal(got, tc.wantErrors) {
				t.Errorf("port_errors_total = %v, want %v", got, tc.wantErrors)
			}
			if got := reconcileErrors(t); got != 0 {
				t.Errorf("reconcile_errors_total = %v, want 0", got)
			}
		})
	}
}

func TestNodePortsOf(t *testing.T) {
	port := func(np int32, protocol corev1.Protocol) corev1.ServicePort {
		return corev1.ServicePort{NodePort: np, Protocol: protocol}
	}
	tests := []struct {
		name        string
		ports       []corev1.ServicePort
		healthCheck int32
		want        []int
	}{
		{name: "no node ports", ports: []corev1.ServicePort{port(0, corev1.ProtocolTCP)}},
		{name: "one per port", ports: []corev1.ServicePort{port(30001, corev1.ProtocolTCP), port(30002, corev1.ProtocolUDP)}, want: []int{30001, 30002}},
		{name: "same port, two protocols", ports: []corev1.ServicePort{port(30053, corev1.ProtocolTCP), port(30053, corev1.ProtocolUDP)}, want: []int{30053}},
		{name: "same port, same protocol", ports: []corev1.ServicePort{port(30001, corev1.ProtocolTCP), port(30001, corev1.ProtocolTCP)}, want: []int{30001, 30001}},
		{name: "same port, TCP, UDP, TCP", ports: []corev1.ServicePort{port(30001, corev1.ProtocolTCP), port(30001, corev1.ProtocolUDP), port(30001, corev1.ProtocolTCP)}, want: []int{30001, 30001}},
		{name: "health check", ports: []corev1.ServicePort{port(30001, corev1.ProtocolTCP)}, healthCheck: 30002, want: []int{30001, 30002}},
		{name: "health check on a TCP node port", ports: []corev1.ServicePort{port(30001, corev1.ProtocolTCP)}, healthCheck: 30001, want: []int{30001, 30001}},
		{name: "health check on a UDP node port", ports: []corev1.ServicePort{port(30001, corev1.ProtocolUDP)}, healthCheck: 30001, want: []int{30001}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: tc.ports, HealthCheckNodePort: tc.healthCheck}}
			if got := nodePortsOf(svc); !slices.Equal(got, tc.want) {
				t.Errorf("nodePortsOf = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRepairLeakGrace(t *testing.T) {
	for _, tc := range registrytest.LeakGraceCases() {
		t.Run(tc.Name, func(t *testing.T) {
			bitmap := newBitmap(t, testRange, 30001, 32000)
			client := fake.NewClientset(newService("a", 30001))
			r, rec := newTestRepair(t, client, bitmap)
			registrytest.LeakGrace{
				Client: client,
				Taker:  newService("taker", 32000),
				Pass:   r.runOnce,
				Held: func() (bool, bool) {
					_, ports := storedPorts(t, bitmap)
					return slices.Contains(ports, 32000), slices.Contains(ports, 30001)
				},
				Leaks: func() float64 { return portErrors(t)[errorTypeLeak] },
			}.Run(t, tc.Steps)
			if got := rec.Recorded(); len(got) != 0 {
				t.Errorf("leaks recorded events %v, want none", got)
			}
		})
	}
}

func TestRepairConflictingWrite(t *testing.T) {
	bitmap := newBitmap(t, testRange)
	bitmap.WriteErrs = []error{registrytest.ErrConflict}
	r, _ := newTestRepair(t, fake.NewClientset(newService("a", 30001)), bitmap)

	registrytest.RunFirstPass(t, r)

	if _, ports := storedPorts(t, bitmap); !slices.Equal(ports, []int{30001}) {
		t.Errorf("bitmap = %v, want [30001] after the conflict was retried", ports)
	}
	if got := reconcileErrors(t); got != 1 {
		t.Errorf("reconcile_errors_total = %v, want 1", got)
	}
}

func TestRunUntilRetriesTransientFirstPassErrors(t *testing.T) {
	for _, tc := range registrytest.FirstPassErrors() {
		t.Run(tc.Name, func(t *testing.T) {
			bitmap := newBitmap(t, testRange)
			bitmap.GetErrs = tc.GetErrs
			client := fake.NewClientset(newService("a", 30001))
			registrytest.FailLists(client, tc.ListErrs)
			r, rec := newTestRepair(t, client, bitmap)

			registrytest.RunFirstPass(t, r)

			if _, ports := storedPorts(t, bitmap); !slices.Equal(ports, []int{30001}) {
				t.Errorf("bitmap = %v, want [30001]", ports)
			}
			if got := reconcileErrors(t); got != tc.WantFailures {
				t.Errorf("reconcile_errors_total = %v, want %v", got, tc.WantFailures)
			}
			if got := len(rec.Recorded()); got != 1 {
				t.Errorf("recorded %d events, want 1 PortNotAllocated", got)
			}
		})
	}
}

func TestRunUntilStops(t *testing.T) {
	client := fake.NewClientset()
	var lists atomic.Int32
	client.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		lists.Add(1)
		return true, nil, apierrors.NewServiceUnavailable("never ready")
	})
	r, _ := newTestRepair(t, client, newBitmap(t, testRange))

	// three failed attempts: a loop that took a failed pass for a success had its chance to say so
	if registrytest.RunUntilTried(t, r, func() bool { return lists.Load() >= 3 }) {
		t.Error("onFirstSuccess called although every pass failed")
	}
	if got := reconcileErrors(t); got < 1 {
		t.Errorf("reconcile_errors_total = %v, want the failed passes counted", got)
	}
}

func TestRepairEventsReachTheAPI(t *testing.T) {
	client := fake.NewClientset(newService("a", 8080))
	r := newRepair(time.Hour, client, mustPortRange(t, testRange), newBitmap(t, testRange))
	r.firstPassBackoff = registrytest.FastBackoff

	registrytest.WantEvents(t, r, client, "Warning|PortOutOfRange|PortAllocation|Service|a|portallocator-repair-controller|"+
		"Port 8080 is not within the port range 30000-32767; please recreate service")
}

func TestRepairMetricsExported(t *testing.T) {
	client := fake.NewClientset(newService("a", 30001), newService("b", 30001))
	r, _ := newTestRepair(t, client, newBitmap(t, testRange, 30001))
	if err := r.runOnce(context.Background()); err != nil {
		t.Fatalf("runOnce: %v", err)
	}
	nodePortRepairReconcileErrors.Inc()

	want := `
# HELP apiserver_nodeport_repair_port_errors_total [ALPHA] Number of errors detected on ports by the repair loop broken down by type of error: leak, repair, full, outOfRange, duplicate, unknown
# TYPE apiserver_nodeport_repair_port_errors_total counter
apiserver_nodeport_repair_port_errors_total{type="duplicate"} 1
# HELP apiserver_nodeport_repair_reconcile_errors_total [ALPHA] Number of reconciliation failures on the nodeport repair reconcile loop
# TYPE apiserver_nodeport_repair_reconcile_errors_total counter
apiserver_nodeport_repair_reconcile_errors_total 1
`
	if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want),
		"apiserver_nodeport_repair_port_errors_total", "apiserver_nodeport_repair_reconcile_errors_total"); err != nil {
		t.Error(err)
	}
}
