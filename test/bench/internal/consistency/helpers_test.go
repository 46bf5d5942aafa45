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

package consistency

import (
	"context"
	"math/big"
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/netfork/netfork/test/bench/internal/ranges"
	"github.com/netfork/netfork/test/bench/internal/workload"
)

// fakeBitmaps serves bitmaps from memory, keyed as in etcd below /registry.
type fakeBitmaps map[string]*corev1.RangeAllocation

func (f fakeBitmaps) ReadBitmap(_ context.Context, key string) (*corev1.RangeAllocation, error) {
	return f[key], nil
}

// testService is a Service with the given ClusterIP ("None" for headless) and NodePort (0 for none).
func testService(namespace, name, clusterIP string, nodePort int32) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.ServiceSpec{
			Type:       corev1.ServiceTypeClusterIP,
			ClusterIP:  clusterIP,
			ClusterIPs: []string{clusterIP},
			Ports:      []corev1.ServicePort{{Protocol: corev1.ProtocolTCP, Port: 80, NodePort: nodePort}},
		},
	}
	if nodePort != 0 {
		svc.Spec.Type = corev1.ServiceTypeNodePort
	}
	return svc
}

// testIPAddress is the IPAddress the allocator writes for a Service's ClusterIP.
func testIPAddress(ip, namespace, name string) *networkingv1.IPAddress {
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: ip},
		Spec: networkingv1.IPAddressSpec{
			ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: namespace, Name: name},
		},
	}
}

// clusterIPBitmap marks ips in a bitmap over ranges.ServiceCIDR, in upstream's layout.
func clusterIPBitmap(t *testing.T, ips ...string) *corev1.RangeAllocation {
	t.Helper()
	base := ranges.IPv4Uint(netip.MustParsePrefix(ranges.ServiceCIDR).Addr()) + 1
	marks := new(big.Int)
	for _, ip := range ips {
		marks.SetBit(marks, int(ranges.IPv4Uint(netip.MustParseAddr(ip))-base), 1)
	}
	return &corev1.RangeAllocation{Range: ranges.ServiceCIDR, Data: marks.Bytes()}
}

// nodePortBitmap marks ports in a bitmap over ranges.NodePortRange.
func nodePortBitmap(ports ...int) *corev1.RangeAllocation {
	marks := new(big.Int)
	for _, port := range ports {
		marks.SetBit(marks, port-ranges.NodePortBase, 1)
	}
	return &corev1.RangeAllocation{Range: ranges.NodePortRange, Data: marks.Bytes()}
}

// consistentObjects are a cluster after creating two bench Services, one of them NodePort:
// the kubernetes Service, the bench Services and an IPAddress for every ClusterIP.
func consistentObjects() []runtime.Object {
	return []runtime.Object{
		testService(metav1.NamespaceDefault, "kubernetes", ranges.KubernetesServiceIP, 0),
		testService(workload.Namespace, "svc-000000", "10.96.0.10", 0),
		testService(workload.Namespace, "svc-000001", "10.96.0.11", 30001),
		testIPAddress(ranges.KubernetesServiceIP, metav1.NamespaceDefault, "kubernetes"),
		testIPAddress("10.96.0.10", workload.Namespace, "svc-000000"),
		testIPAddress("10.96.0.11", workload.Namespace, "svc-000001"),
	}
}

// consistentBitmaps mark exactly what consistentObjects hold.
func consistentBitmaps(t *testing.T) fakeBitmaps {
	return fakeBitmaps{
		clusterIPBitmapKey: clusterIPBitmap(t, ranges.KubernetesServiceIP, "10.96.0.10", "10.96.0.11"),
		nodePortBitmapKey:  nodePortBitmap(30001),
	}
}

// snapshotOf lists objects through a fake clientset, as TakeSnapshot does against an apiserver.
func snapshotOf(t *testing.T, objects []runtime.Object, bitmaps fakeBitmaps) Snapshot {
	t.Helper()
	s, err := TakeSnapshot(context.Background(), fake.NewClientset(objects...), bitmaps)
	if err != nil {
		t.Fatalf("TakeSnapshot: %v", err)
	}
	return s
}
