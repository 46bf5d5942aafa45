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

package portallocator

import (
	"strings"
	"testing"

	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/registrytest"
)

var exportedNames = []string{
	"kube_apiserver_nodeport_allocator_allocated_ports",
	"kube_apiserver_nodeport_allocator_available_ports",
	"kube_apiserver_nodeport_allocator_allocation_total",
	"kube_apiserver_nodeport_allocator_allocation_errors_total",
}

func TestMetrics(t *testing.T) {
	// The counters are the process's: start from zero, so that the test counts
	// only its own allocations when it runs again (go test -count); the
	// gauges are set by the allocator.
	nodePortAllocations.Reset()
	nodePortAllocationErrors.Reset()
	// An upstream allocator in the same process registers its collectors first.
	newUpstreamAllocator(t, "30000-30100").EnableMetrics()

	a := newTestAllocator(t, "30000-30015")
	a.EnableMetrics()
	newUpstreamAllocator(t, "30000-30100").EnableMetrics() // no panic either way round

	registrytest.WantRegisteredOverUpstream(t, registration.Clashes(), nodePortAllocated, nodePortAvailable, nodePortAllocations, nodePortAllocationErrors)

	type step struct {
		name    string
		do      func() error
		wantErr bool
	}
	allocateNext := func() error { _, err := a.AllocateNext(); return err }
	steps := []step{
		{"static", func() error { return a.Allocate(30000) }, false},
		{"static, taken", func() error { return a.Allocate(30000) }, true},
		{"static, out of range", func() error { return a.Allocate(29999) }, true},
	}
	for range 15 {
		steps = append(steps, step{"dynamic", allocateNext, false})
	}
	steps = append(steps,
		step{"dynamic, full", allocateNext, true},
		step{"release", func() error { return a.Release(30000) }, false},
	)
	for _, s := range steps {
		if err := s.do(); (err != nil) != s.wantErr {
			t.Fatalf("%s: error %v, want error %v", s.name, err, s.wantErr)
		}
	}

	want := `
# HELP kube_apiserver_nodeport_allocator_allocated_ports [ALPHA] Gauge measuring the number of allocated NodePorts for Services
# TYPE kube_apiserver_nodeport_allocator_allocated_ports gauge
kube_apiserver_nodeport_allocator_allocated_ports 15
# HELP kube_apiserver_nodeport_allocator_available_ports [ALPHA] Gauge measuring the number of available NodePorts for Services
# TYPE kube_apiserver_nodeport_allocator_available_ports gauge
kube_apiserver_nodeport_allocator_available_ports 1
# HELP kube_apiserver_nodeport_allocator_allocation_total [ALPHA] Number of NodePort allocations
# TYPE kube_apiserver_nodeport_allocator_allocation_total counter
kube_apiserver_nodeport_allocator_allocation_total{scope="dynamic"} 15
kube_apiserver_nodeport_allocator_allocation_total{scope="static"} 1
# HELP kube_apiserver_nodeport_allocator_allocation_errors_total [ALPHA] Number of errors trying to allocate NodePort
# TYPE kube_apiserver_nodeport_allocator_allocation_errors_total counter
kube_apiserver_nodeport_allocator_allocation_errors_total{scope="dynamic"} 1
kube_apiserver_nodeport_allocator_allocation_errors_total{scope="static"} 2
`
	if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want), exportedNames...); err != nil {
		t.Errorf("exported metrics: %v", err)
	}
}

// TestMetricsNetforkFirst runs in a child process, where no collector is
// registered yet: netfork's allocator enables metrics before any upstream
// one, which must not make upstream's MustRegister panic.
func TestMetricsNetforkFirst(t *testing.T) {
	if registrytest.InChild() {
		a := newTestAllocator(t, "30000-30015")
		a.EnableMetrics()
		newUpstreamAllocator(t, "30000-30100").EnableMetrics()
		if err := a.Allocate(30001); err != nil {
			t.Fatalf("Allocate: %v", err)
		}
		want := `
# HELP kube_apiserver_nodeport_allocator_allocated_ports [ALPHA] Gauge measuring the number of allocated NodePorts for Services
# TYPE kube_apiserver_nodeport_allocator_allocated_ports gauge
kube_apiserver_nodeport_allocator_allocated_ports 1
`
		if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want), exportedNames[0]); err != nil {
			t.Errorf("exported metrics: %v", err)
		}
		return
	}
	registrytest.RunInChild(t)
}
