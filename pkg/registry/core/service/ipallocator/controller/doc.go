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

// Package controller holds netfork's ClusterIP repair loops, where upstream
// keeps k8s.io/kubernetes/pkg/registry/core/service/ipallocator/controller
// (v1.37.2); the core storage starts whichever NewRepair returns.
//
// With MultiCIDRServiceAllocator off, Repair rebuilds the legacy bitmaps
// (/ranges/serviceips, /ranges/secondaryserviceips) from the Services, with
// upstream's events, reasons, metrics and leak grace, so an upstream bitmap-mode
// apiserver sharing the etcd sees the same repairs. It differs from upstream's
// bitmap Repair where upstream misbehaves:
//
//   - a first pass that fails (Service list 429/5xx or Forbidden while the
//     apiserver starts, a conflicting bitmap write) is retried within seconds,
//     not after the repair interval, so it no longer fails the post-start hook
//     (kubernetes/kubernetes#141220, #136288); see internal/repairloop;
//   - leak counts advance only when a pass's write succeeds and are forgotten
//     for values no longer leaked, so conflict retries cannot release an
//     in-flight allocation early;
//   - a stored bitmap that cannot be decoded is logged with its key and rebuilt
//     from the Services instead of failing every pass;
//   - a bitmap is written only when the rebuilt one differs, so an idle pass does
//     not make concurrent allocations conflict.
//
// With MultiCIDRServiceAllocator on, RepairIPAddress keeps IPAddress objects
// and Service ClusterIPs one-to-one, where upstream runs RepairIPAddress
// (repairip.go). It works through the API client, informers and the
// apiserver's IPAddress index (package ipaddressindex) only, so it does not
// depend on the allocator an apiserver runs, writes IPAddresses
// exactly as upstream's allocator does (name, family and managed-by labels,
// parentRef) and accepts upstream's. It keeps upstream's event reasons and
// texts and also counts what it finds in the clusterip_repair metrics, which
// upstream's IPAddress loop leaves at zero. It differs from upstream's:
//
//   - an allocator-managed IPAddress no Service uses is deleted only once it is
//     older than the grace period (60 s) and has been seen unused for as long,
//     after a read through the API confirms it, with a delete conditional on
//     its UID and resourceVersion; upstream deletes on age alone from its
//     caches and, during mass Service deletions, races the Service storage's
//     own release, logging leaks that are none;
//   - a missing IPAddress is created only after the API confirms that it is
//     missing and that the Service still holds the address, so a Service being
//     deleted does not get its address re-allocated;
//   - wrong labels on an IPAddress that points at the right Service are fixed
//     in place instead of delete-and-create, which let another allocator take
//     the address in between;
//   - an IPAddress whose managed-by label names another manager is never
//     changed or deleted; a Service whose ClusterIP it holds is reported
//     ClusterIPAlreadyAllocated. One without the label is repaired as upstream;
//   - a first pass that fails (Forbidden or unavailable while the apiserver
//     starts, kubernetes/kubernetes#136288) is retried with backoff instead of
//     ending the loop and, through the post-start hook, the apiserver; an
//     object that fails for good is retried in the background and does not
//     hold up readiness; the default ServiceCIDR is awaited for at most 20 s,
//     not forever, and while the informers do not sync it keeps waiting and
//     logs which; a Service's ClusterIP that a new ServiceCIDR brings into
//     range is repaired at once rather than at the next resync.
package controller
