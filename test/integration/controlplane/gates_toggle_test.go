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

package controlplane

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/featuregate"

	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/test/integration/framework"
)

// TestMultiCIDRServiceAllocatorOnOffOn restarts one cluster with the gate on,
// off and on again: every Service keeps its ClusterIP across the switches, no
// address is handed out twice, and once the gate is back on every Service,
// including those allocated from the bitmap, has its IPAddress.
func TestMultiCIDRServiceAllocatorOnOffOn(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	held := map[string]string{} // ClusterIP -> Service
	var services []*corev1.Service

	phases := []bool{true, false, true}
	for phase, multiCIDR := range phases {
		s := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix),
			framework.WithFeatureGates(map[featuregate.Feature]bool{features.MultiCIDRServiceAllocator: multiCIDR}))

		for _, want := range services {
			got, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, want.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("phase %d: Service %s is gone: %v", phase, want.Name, err)
			}
			if got.Spec.ClusterIP != want.Spec.ClusterIP {
				t.Errorf("phase %d: Service %s has ClusterIP %s, had %s", phase, want.Name, got.Spec.ClusterIP, want.Spec.ClusterIP)
			}
		}
		for i := 0; i < 20; i++ {
			created := createService(ctx, t, s.Client, clusterIPService(fmt.Sprintf("phase-%d-%d", phase, i)))
			if other, dup := held[created.Spec.ClusterIP]; dup {
				t.Fatalf("phase %d: ClusterIP %s handed to %s, already held by %s", phase, created.Spec.ClusterIP, created.Name, other)
			}
			held[created.Spec.ClusterIP] = created.Name
			services = append(services, created)
		}
		if multiCIDR {
			for _, svc := range services {
				waitIPAddress(ctx, t, s.Client, svc.Spec.ClusterIP, svc)
			}
		}
		s.Stop()
	}
}
