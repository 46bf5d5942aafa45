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

// Package servicecidrusage keeps netfork's condition NearlyFull
// (ConditionType, "netfork.io/NearlyFull") on every ServiceCIDR, so that a
// range says it is running out before Service creates fail with "range is
// full". Upstream has no such condition: its ServiceCIDRs say Ready=True
// until the last address is gone and after.
//
// The counts come from the ClusterIP allocators' in-memory index of the
// apiserver that runs the controller (one at a time, elected with netfork's
// ServiceCIDR controller): no IPAddress is listed and nothing is written per
// Service create. The condition is written only when its level changes:
//
//   - True, reason Full: some CIDR of the ServiceCIDR has no free address.
//   - True, reason NearlyFull: some CIDR has SetPercent (90) % or more of its
//     usable addresses used. Full drops back to NearlyFull only below SetPercent.
//   - False, reason HasRoom: every CIDR is below ClearPercent (85) %, after
//     the condition was True. A ServiceCIDR that never filled up has no condition.
//
// Each change has an events/v1 event (Warning for True, Normal for False).
// The condition's message gives the counts at the change; the Used and Free
// table columns and the kube_apiserver_clusterip_allocator_* metrics give them live.
//
// The condition is applied with its own field manager (FieldManager), so the
// Ready condition that upstream's kube-controller-manager and netfork's
// ServiceCIDR controller apply under "service-cidr-controller" neither
// removes it nor is removed by it: conditions are a map list keyed by type,
// and server-side apply touches only the entries a manager owns.
package servicecidrusage
