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

package features

import (
	"testing"

	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

func TestClusterIPAllocationOf(t *testing.T) {
	tests := []struct {
		multiCIDR, disableDualWrite bool
		want                        ClusterIPAllocation
		ipAddresses, bitmaps        bool
	}{
		{multiCIDR: true, disableDualWrite: true, want: IPAddresses, ipAddresses: true},
		{multiCIDR: true, disableDualWrite: false, want: IPAddressesDualWrite, ipAddresses: true, bitmaps: true},
		{multiCIDR: false, disableDualWrite: true, want: Bitmaps, bitmaps: true},
	}
	for _, tc := range tests {
		t.Run(tc.want.String(), func(t *testing.T) {
			gate, _, _ := newTestRegistry(t)
			featuregatetesting.SetFeatureGatesDuringTest(t, gate, featuregatetesting.FeatureOverrides{
				MultiCIDRServiceAllocator: tc.multiCIDR, DisableAllocatorDualWrite: tc.disableDualWrite,
			})
			got := ClusterIPAllocationOf(gate)
			if got != tc.want || got.UsesIPAddresses() != tc.ipAddresses || got.UsesBitmaps() != tc.bitmaps {
				t.Errorf("got %s (IPAddresses %t, bitmaps %t), want %s (%t, %t)",
					got, got.UsesIPAddresses(), got.UsesBitmaps(), tc.want, tc.ipAddresses, tc.bitmaps)
			}
		})
	}
}
