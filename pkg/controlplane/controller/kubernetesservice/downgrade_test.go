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

package kubernetesservice

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/netfork/netfork/pkg/controlplane/reconcilers"
)

// TestStopHandsTheServiceToUpstream: the last netfork apiserver of a rolling
// downgrade leaves the Service in the shape the apiservers left call for,
// since upstream's never change its families; the last apiserver of all
// leaves it as it is, for the next start.
func TestStopHandsTheServiceToUpstream(t *testing.T) {
	tests := []struct {
		name     string
		removed  reconcilers.Decision
		wantDual bool
	}{
		{name: "upstream apiservers left", removed: reconcilers.Decision{Shape: reconcilers.ShapeUpstream, Members: []reconcilers.Member{{Primary: "198.18.0.2"}}}},
		{name: "single-stack netfork apiservers left", removed: reconcilers.Decision{Shape: reconcilers.ShapeSingleStack, Members: []reconcilers.Member{{Primary: "198.18.0.2"}}}},
		{name: "dual-stack netfork apiservers left", removed: reconcilers.Decision{Shape: reconcilers.ShapeDualStack, Members: []reconcilers.Member{{Primary: "198.18.0.2", Secondary: "fd00::2"}}}, wantDual: true},
		{name: "nobody left", removed: reconcilers.Decision{Shape: reconcilers.ShapeUpstream}, wantDual: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestController(t, Config{Interval: 50 * time.Millisecond, SecondaryServiceIP: secondaryServiceIP}, dualStackService())
			c.decide(t, reconcilers.ShapeDualStack)
			c.rec.mu.Lock()
			c.rec.removed = tc.removed
			c.rec.mu.Unlock()
			c.Stop()
			svc := c.service(t)
			dual := len(svc.Spec.ClusterIPs) == 2 && svc.Spec.IPFamilyPolicy != nil && *svc.Spec.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack
			if dual != tc.wantDual {
				t.Errorf("after Stop the Service has ClusterIPs %v and policy %v; want dual-stack %t", svc.Spec.ClusterIPs, *svc.Spec.IPFamilyPolicy, tc.wantDual)
			}
		})
	}
}
