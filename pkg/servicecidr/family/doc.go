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

// Package family turns a live cluster's Services dual-stack and back, in
// place, and replaces the `kubernetes` ServiceCIDR when the cluster goes back
// to one IP family (KEP-2438 dual-stack apiserver, KEP-1880 multiple Service
// CIDRs), for the kubectl plugin kubectl-servicecidr. It is not upstream code
// and stands in for none.
//
// A Service's ipFamilyPolicy may change on update, and upstream's registry
// (k8s.io/kubernetes/pkg/registry/core/service/storage, v1.37.2) then adds or
// releases the secondary ClusterIP while keeping the primary: DualStack sets
// the policy and both families, because a PreferDualStack Service is only
// upgraded when its ipFamilies change too; SingleStack sets the policy alone,
// which the registry reads as "trim the secondary". Each result is checked,
// since an apiserver still serving one range answers with one family or an
// error, and a run while the apiservers roll may meet one.
//
// A ServiceCIDR's CIDRs may grow but never shrink, so a dual-stack
// `kubernetes` ServiceCIDR goes back to one family only by being recreated:
// ReplaceDefault covers its primary CIDR with a hold ServiceCIDR, deletes it,
// lets the apiservers release it (the deletion controller's grace period) and
// recreate it from their flags, and deletes the hold. Every step is read back
// from the cluster, so a run killed at any point continues when run again.
package family
