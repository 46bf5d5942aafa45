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
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/registrytest"
	"github.com/netfork/netfork/pkg/registry/core/service/portallocator"
)

// testRange is upstream's default NodePort range.
const testRange = "30000-32767"

// newBitmap is a stored bitmap over portRange with ports allocated.
func newBitmap(t *testing.T, portRange string, ports ...int) *registrytest.Bitmap {
	t.Helper()
	a, err := portallocator.NewInMemory(mustPortRange(t, portRange))
	if err != nil {
		t.Fatalf("NewInMemory(%s): %v", portRange, err)
	}
	for _, port := range ports {
		if err := a.Allocate(port); err != nil {
			t.Fatalf("Allocate(%d) in %s: %v", port, portRange, err)
		}
	}
	stored := &api.RangeAllocation{}
	if err := a.Snapshot(stored); err != nil {
		t.Fatalf("Snapshot(%s): %v", portRange, err)
	}
	return registrytest.NewBitmap(stored)
}

// storedPorts lists the ports allocated in f's stored bitmap, sorted, and its range.
func storedPorts(t *testing.T, f *registrytest.Bitmap) (string, []int) {
	t.Helper()
	stored := f.Current()
	if stored == nil {
		return "", nil
	}
	a, err := portallocator.NewFromSnapshot(stored)
	if err != nil {
		t.Fatalf("NewFromSnapshot(%s): %v", stored.Range, err)
	}
	var got []int
	a.ForEach(func(port int) { got = append(got, port) })
	slices.Sort(got)
	return stored.Range, got
}

func mustPortRange(t *testing.T, s string) utilnet.PortRange {
	t.Helper()
	pr, err := utilnet.ParsePortRange(s)
	if err != nil {
		t.Fatalf("ParsePortRange(%s): %v", s, err)
	}
	return *pr
}

// newService is a NodePort Service with one TCP port per node port.
func newService(name string, nodePorts ...int32) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ClusterIP: "10.0.0.1", ClusterIPs: []string{"10.0.0.1"}},
	}
	for i, np := range nodePorts {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{
			Name: fmt.Sprintf("p%d", i), Protocol: corev1.ProtocolTCP, Port: int32(80 + i), NodePort: np,
		})
	}
	return svc
}

// withHealthCheck makes svc a LoadBalancer with externalTrafficPolicy Local and healthCheckNodePort hc.
func withHealthCheck(svc *corev1.Service, hc int32) *corev1.Service {
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	svc.Spec.HealthCheckNodePort = hc
	return svc
}

// warning is the Warning event the repair loop records on default/name.
func warning(name, reason, note string) registrytest.Event {
	return registrytest.Event{Regarding: "default/" + name, EventType: corev1.EventTypeWarning, Reason: reason, Action: "PortAllocation", Note: note}
}

// newTestRepair is a Repair over testRange that records its events in a
// registrytest.Recorder, with its metrics reset.
func newTestRepair(t *testing.T, client kubernetes.Interface, bitmap *registrytest.Bitmap) (*Repair, *registrytest.Recorder) {
	t.Helper()
	r := newRepair(time.Hour, client, mustPortRange(t, testRange), bitmap)
	rec := &registrytest.Recorder{}
	r.recorder = rec
	r.firstPassBackoff = registrytest.FastBackoff
	nodePortRepairPortErrors.Reset()
	nodePortRepairReconcileErrors.Reset()
	return r, rec
}

// allErrorTypes are the values of the type label of nodePortRepairPortErrors.
var allErrorTypes = []string{errorTypeLeak, errorTypeRepair, errorTypeFull, errorTypeOutOfRange, errorTypeDuplicate, errorTypeUnknown}

// portErrors reads nodePortRepairPortErrors, leaving out the types at zero.
func portErrors(t *testing.T) map[string]float64 {
	t.Helper()
	return registrytest.TypeCounts(t, "port_errors_total", nodePortRepairPortErrors, allErrorTypes)
}

// reconcileErrors reads nodePortRepairReconcileErrors.
func reconcileErrors(t *testing.T) float64 {
	t.Helper()
	return registrytest.Count(t, "reconcile_errors_total", nodePortRepairReconcileErrors)
}
