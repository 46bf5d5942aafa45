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

// Command upgrade-downgrade rolls a local-up of three apiservers on one etcd through
// upgrades and downgrades between upstream kube-apiserver releases and netfork, one
// apiserver at a time (local-up replace), while a load creates and deletes ClusterIP,
// NodePort and dual-stack Services. After every step it pauses the load and checks
// the cluster with test/internal/clustercheck (no Service lost or moved, no duplicate
// ClusterIP or NodePort, IPAddresses within one repair interval, the legacy bitmaps
// wherever a bitmap-only or dual-writing apiserver is live, the kubernetes Service's
// shape, the Warning events by reason) and that every apiserver is still up, and prints
// a table per step. hack/upgrade-downgrade.sh builds the binaries and runs it.
//
// Scenarios:
//
//	a  upstream vX → netfork (default gates) → back to vX → netfork
//	b  KEP-1880 migration and rollback: bitmap-only → (unsafe: one netfork without
//	   dual-write beside bitmap-only ones, which must raise BitmapOnlyAPIServerDetected)
//	   → netfork DisableAllocatorDualWrite=false → netfork default → dual-write →
//	   bitmap-only
//	c  netfork with DualStackAPIServer → one upstream apiserver joins (the kubernetes
//	   Service goes single-stack) → leaves (dual-stack again, never flapping) →
//	   every apiserver upstream (single-stack, no stale secondary slice)
package main
