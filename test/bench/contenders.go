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

package main

const (
	// baselineContender is the contender every ratio in the summary is to.
	baselineContender = "netfork"
)

// contender is one kube-apiserver configuration under test.
type contender struct {
	// name is the contender's name in results.csv.
	name string
	// binaryFlag names the flag that sets the contender's binary.
	binaryFlag string
	// featureGates is the --feature-gates value, empty for the binary's defaults.
	featureGates string
	// headless makes every Service clusterIP: None and none of them NodePort: the floor.
	headless bool
	// ipAddresses says IPAddress objects back every ClusterIP.
	ipAddresses bool
	// clusterIPBitmap says the legacy bitmap in etcd marks every ClusterIP.
	clusterIPBitmap bool
	// usesServiceCIDRs says the allocator allocates from extra ServiceCIDRs.
	usesServiceCIDRs bool
	// pacedBy names the contender whose creates/s and deletes/s, measured in the same
	// cell and round just before, this one is held to, so that memory is compared at the
	// same request rate and not at each contender's own.
	pacedBy string
}

// contenders are every configuration the issue compares, in their default order; netfork
// first, since every ratio is to it, and a paced contender after the one it is paced by.
var contenders = []contender{
	{name: "netfork", binaryFlag: "netfork-binary", ipAddresses: true, usesServiceCIDRs: true},
	{name: "netfork-dualwrite", binaryFlag: "netfork-binary", featureGates: "DisableAllocatorDualWrite=false",
		ipAddresses: true, clusterIPBitmap: true, usesServiceCIDRs: true},
	{name: "netfork-bitmap", binaryFlag: "netfork-binary", featureGates: "MultiCIDRServiceAllocator=false",
		clusterIPBitmap: true},
	{name: "upstream", binaryFlag: "upstream-binary", ipAddresses: true, usesServiceCIDRs: true},
	{name: "netfork-upstream-pace", binaryFlag: "netfork-binary", ipAddresses: true, usesServiceCIDRs: true, pacedBy: "upstream"},
	{name: "floor-headless", binaryFlag: "netfork-binary", headless: true, ipAddresses: true, usesServiceCIDRs: true},
}

// binary is the kube-apiserver the contender runs.
func (c contender) binary(o *options) string {
	if c.binaryFlag == "upstream-binary" {
		return o.UpstreamBinary
	}
	return o.NetforkBinary
}

// contenderNames lists every contender's name in default order.
func contenderNames() []string {
	names := make([]string, 0, len(contenders))
	for _, c := range contenders {
		names = append(names, c.name)
	}
	return names
}

// lookupContender finds a contender by name.
func lookupContender(name string) (contender, bool) {
	for _, c := range contenders {
		if c.name == name {
			return c, true
		}
	}
	return contender{}, false
}
