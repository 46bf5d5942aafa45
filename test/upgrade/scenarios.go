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

import (
	"fmt"
	"strings"
)

// bitmapWarning is the Warning event netfork raises, within one repair interval, when an
// IPAddress apiserver that does not dual-write shares etcd with a bitmap-only one.
const bitmapWarning = "BitmapOnlyAPIServerDetected"

// member is what one apiserver runs: a binary (by name, see binaries) and its flags.
type member struct {
	binary string
	flags  []string
}

// String shows a member in tables.
func (m member) String() string {
	if len(m.flags) == 0 {
		return m.binary
	}
	return m.binary + " " + strings.Join(m.flags, " ")
}

// step is one state of the cluster: what each apiserver runs once the step's roll is done.
type step struct {
	name    string
	members [3]member
	// bitmaps: the ClusterIP bitmaps must agree with the Services, which holds wherever
	// a bitmap-only apiserver is live (its repair loop keeps them whole; a dual-writing
	// one only adds to them, as upstream's) and no unsafe mix is.
	bitmaps bool
	// ipAddresses: an IPAddress apiserver is live, so every ClusterIP must get its IPAddress.
	ipAddresses bool
	// unsafe: the step mixes a bitmap-only apiserver with an IPAddress one that does not
	// dual-write; the warning is expected here and nowhere else.
	unsafe bool
	// families is the kubernetes Service's expected shape once the step settled.
	families string
	// staleSliceStep: the manual step of docs/differences.md after a downgrade to upstream, deleting a
	// stale secondary EndpointSlice, is allowed.
	staleSliceStep bool
}

// scenario is a named sequence of steps; the first starts local-up, each later one rolls.
type scenario struct {
	name  string
	steps []step
}

// all sets every apiserver to m.
func all(m member) [3]member { return [3]member{m, m, m} }

// netfork runs netfork's binary with feature gates gates ("" for the defaults).
func netfork(gates string) member {
	if gates == "" {
		return member{binary: "netfork"}
	}
	return member{binary: "netfork", flags: []string{"--feature-gates=" + gates}}
}

// upstream runs upstream's release version with flags.
func upstream(version string, flags ...string) member {
	return member{binary: version, flags: flags}
}

// scenarioA is upstream old → netfork → back to old → netfork, IPAddress mode throughout.
func scenarioA(old string) scenario {
	return scenario{name: "a/" + old, steps: []step{
		{name: "upstream " + old, members: all(upstream(old)), ipAddresses: true, families: "single"},
		{name: "netfork", members: all(netfork("")), ipAddresses: true, families: "single"},
		{name: "back to upstream " + old, members: all(upstream(old)), ipAddresses: true, families: "single"},
		{name: "netfork again", members: all(netfork("")), ipAddresses: true, families: "single"},
	}}
}

// scenarioB is KEP-1880's migration from the legacy bitmaps and its rollback; bitmapOnly
// is what runs bitmap-only (netfork with the gate off, or upstream v1.33.x with it off).
func scenarioB(bitmapOnly member, label string) scenario {
	dualWrite := netfork("DisableAllocatorDualWrite=false")
	unsafe := [3]member{netfork(""), bitmapOnly, bitmapOnly}
	return scenario{name: "b/" + label, steps: []step{
		{name: "bitmap-only " + label, members: all(bitmapOnly), bitmaps: true, families: "single"},
		{name: "UNSAFE: netfork without dual-write beside bitmap-only", members: unsafe, ipAddresses: true, unsafe: true, families: "single"},
		{name: "netfork DisableAllocatorDualWrite=false", members: all(dualWrite), ipAddresses: true, families: "single"},
		{name: "netfork default", members: all(netfork("")), ipAddresses: true, families: "single"},
		{name: "back to dual-write", members: all(dualWrite), ipAddresses: true, families: "single"},
		{name: "back to bitmap-only " + label, members: all(bitmapOnly), bitmaps: true, families: "single"},
	}}
}

// scenarioC is KEP-2438's dual-stack kubernetes Service with an upstream apiserver
// joining and leaving, then a downgrade to upstream only.
func scenarioC(up string) scenario {
	dual := netfork("DualStackAPIServer=true")
	joined := [3]member{dual, dual, upstream(up)}
	return scenario{name: "c/" + up, steps: []step{
		{name: "netfork DualStackAPIServer", members: all(dual), ipAddresses: true, families: "dual"},
		{name: "upstream " + up + " joins as apiserver 2", members: joined, ipAddresses: true, families: "single"},
		{name: "upstream " + up + " leaves", members: all(dual), ipAddresses: true, families: "dual"},
		{name: "downgrade to upstream " + up, members: all(upstream(up)), ipAddresses: true, families: "single", staleSliceStep: true},
	}}
}

// scenarios builds the scenarios named in which ("a", "b", "c") for the upstream
// versions given: a runs once per version older than or equal to the pinned one, b with
// netfork bitmap-only and once per v1.33.x, c with the pinned version.
func scenarios(which []string, versions []string, pinned string) ([]scenario, error) {
	var out []scenario
	for _, w := range which {
		switch w {
		case "a":
			for _, v := range versions {
				if !strings.HasPrefix(v, "v1.33.") {
					out = append(out, scenarioA(v))
				}
			}
		case "b":
			out = append(out, scenarioB(netfork("MultiCIDRServiceAllocator=false"), "netfork"))
			for _, v := range versions {
				if strings.HasPrefix(v, "v1.33.") {
					out = append(out, scenarioB(upstream(v, "--feature-gates=MultiCIDRServiceAllocator=false"), v))
				}
			}
		case "c":
			out = append(out, scenarioC(pinned))
		default:
			return nil, fmt.Errorf("--scenarios: unknown scenario %q (a, b or c)", w)
		}
	}
	return out, nil
}
