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

// Package controller holds netfork's NodePort repair loop, where upstream
// keeps k8s.io/kubernetes/pkg/registry/core/service/portallocator/controller
// (v1.37.2). Repair rebuilds the NodePort bitmap (/ranges/servicenodeports)
// from the Services' node ports and health-check node ports, with upstream's
// events, reasons, metrics and leak grace, so an upstream apiserver sharing the
// etcd sees the same repairs. It differs from upstream's Repair where upstream
// misbehaves:
//
//   - a first pass that fails (Service list 429/5xx or Forbidden while the
//     apiserver starts, a conflicting bitmap write) is retried within seconds,
//     not after the repair interval, so it no longer fails the post-start hook
//     (kubernetes/kubernetes#141220, #136288); see internal/repairloop;
//   - leak counts advance only when a pass's write succeeds and are forgotten
//     for ports no longer leaked, so conflict retries cannot release an
//     in-flight allocation early;
//   - a stored bitmap that cannot be decoded is logged with its key and rebuilt
//     from the Services instead of failing every pass;
//   - the bitmap is written only when the rebuilt one differs, so an idle pass
//     does not make concurrent allocations conflict.
package controller
