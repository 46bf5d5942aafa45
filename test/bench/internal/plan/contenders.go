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

package plan

// Contender is one kube-apiserver configuration under test.
type Contender struct {
	// Name is the contender's name in results.csv.
	Name string
	// BinaryFlag names the flag that sets the contender's binary.
	BinaryFlag string
	// FeatureGates is the --feature-gates value, empty for the binary's defaults.
	FeatureGates string
	// Headless makes every Service clusterIP: None and none of them NodePort: the floor.
	Headless bool
	// IPAddresses says IPAddress objects back every ClusterIP.
	IPAddresses bool
	// ClusterIPBitmap says the legacy bitmap in etcd marks every ClusterIP.
	ClusterIPBitmap bool
	// UsesServiceCIDRs says the allocator allocates from extra ServiceCIDRs.
	UsesServiceCIDRs bool
	// PacedBy names the contender whose creates/s and deletes/s, measured in the same
	// cell and round just before, this one is held to, so that memory is compared at the
	// same request rate and not at each contender's own.
	PacedBy string
}

// contenders are every configuration the issue compares, in their default order; netfork
// first, since every ratio is to it, and a paced contender after the one it is paced by.
var contenders = []Contender{
	{Name: "netfork", BinaryFlag: "netfork-binary", IPAddresses: true, UsesServiceCIDRs: true},
	{Name: "netfork-dualwrite", BinaryFlag: "netfork-binary", FeatureGates: "DisableAllocatorDualWrite=false",
		IPAddresses: true, ClusterIPBitmap: true, UsesServiceCIDRs: true},
	{Name: "netfork-bitmap", BinaryFlag: "netfork-binary", FeatureGates: "MultiCIDRServiceAllocator=false",
		ClusterIPBitmap: true},
	{Name: "upstream", BinaryFlag: "upstream-binary", IPAddresses: true, UsesServiceCIDRs: true},
	{Name: "netfork-upstream-pace", BinaryFlag: "netfork-binary", IPAddresses: true, UsesServiceCIDRs: true, PacedBy: "upstream"},
	{Name: "floor-headless", BinaryFlag: "netfork-binary", Headless: true, IPAddresses: true, UsesServiceCIDRs: true},
}

// Binary is the kube-apiserver the contender runs.
func (c Contender) Binary(o *Options) string {
	if c.BinaryFlag == "upstream-binary" {
		return o.UpstreamBinary
	}
	return o.NetforkBinary
}

// ContenderNames lists every contender's name in default order.
func ContenderNames() []string {
	names := make([]string, 0, len(contenders))
	for _, c := range contenders {
		names = append(names, c.Name)
	}
	return names
}

// LookupContender finds a contender by name.
func LookupContender(name string) (Contender, bool) {
	for _, c := range contenders {
		if c.Name == name {
			return c, true
		}
	}
	return Contender{}, false
}
