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

import "k8s.io/component-base/featuregate"

// ClusterIPAllocation is how an apiserver allocates ClusterIPs, as the two
// unlocked gates decide; netfork's allocators and repair loops take it as
// configuration. The zero value is upstream 1.37's only mode.
type ClusterIPAllocation int

const (
	// IPAddresses allocates IPAddress objects out of ServiceCIDRs (both gates at their defaults).
	IPAddresses ClusterIPAllocation = iota
	// IPAddressesDualWrite allocates IPAddress objects and mirrors them in the
	// legacy bitmaps (DisableAllocatorDualWrite=false).
	IPAddressesDualWrite
	// Bitmaps allocates from the legacy bitmaps only (MultiCIDRServiceAllocator=false).
	Bitmaps
)

// ClusterIPAllocationOf reads the mode from gate.
func ClusterIPAllocationOf(gate featuregate.FeatureGate) ClusterIPAllocation {
	switch {
	case !gate.Enabled(MultiCIDRServiceAllocator):
		return Bitmaps
	case !gate.Enabled(DisableAllocatorDualWrite):
		return IPAddressesDualWrite
	default:
		return IPAddresses
	}
}

// UsesIPAddresses tells whether ClusterIPs are IPAddress objects.
func (a ClusterIPAllocation) UsesIPAddresses() bool { return a != Bitmaps }

// UsesBitmaps tells whether the legacy bitmaps are written.
func (a ClusterIPAllocation) UsesBitmaps() bool { return a != IPAddresses }

func (a ClusterIPAllocation) String() string {
	switch a {
	case IPAddresses:
		return "IPAddresses"
	case IPAddressesDualWrite:
		return "IPAddressesDualWrite"
	case Bitmaps:
		return "Bitmaps"
	}
	return "unknown"
}
