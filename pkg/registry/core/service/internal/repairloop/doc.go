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

// Package repairloop runs a range repair pass the way netfork's ClusterIP and
// NodePort repair loops need it. It stands in for the RunUntil/runOnce pair that
// upstream's k8s.io/kubernetes/pkg/registry/core/service/{ipallocator,portallocator}/controller
// Repair types (v1.37.2) each carry, and differs from them in one place:
// upstream runs the first pass under wait.Until, so a first pass that fails
// (a Service list answered 429/5xx while the watch cache starts, Forbidden while
// RBAC is not yet loaded, a bitmap write that keeps conflicting) is only retried
// after the repair interval (3 minutes by default), after the 1 minute the
// "start-service-ip-repair-controllers" post-start hook waits, and the apiserver
// exits (kubernetes/kubernetes#141220, #136288). Here a failed first pass is
// retried with a short capped backoff until it succeeds or the loop stops; every
// later pass keeps upstream's cadence. It also holds the bitmap pass both
// loops make (StoredBitmap, BitmapPass): read the stored bitmap, rebuild it
// from the Services, hold what looks leaked for its grace (Leaks), and write
// it back only when it changed (Snapshot).
package repairloop
