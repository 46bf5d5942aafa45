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

// Command cluster-check checks what a cluster stores about Service allocations and
// prints one table row per check, exiting 1 when any fails: Services kept since a
// snapshot (no Service lost, recreated or moved to other ClusterIPs or NodePorts), no
// duplicate ClusterIP or NodePort, every ClusterIP backed by its IPAddress within one
// repair interval (IPAddress modes), the legacy bitmaps agreeing with the Services
// (with etcd access), the kubernetes Service's shape, kube-apiserver pod restarts, and
// the Warning events by reason, some expected and some forbidden. It works on any
// cluster (local-up, kind); the upgrade harnesses run it after every step. Run it with
// the cluster's load paused: the checks wait (--settle, --repair-interval) for
// allocations in flight to land, not for a load that never stops.
//
//	cluster-check --kubeconfig K [--snapshot-in S0] [--snapshot-out S1] [--etcd-endpoints URL] ...
package main
