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

// Package clustercheck checks what a cluster stores about Service allocations: every
// ClusterIP and NodePort held once, every ClusterIP backed by its IPAddress (KEP-1880)
// and the legacy bitmaps marking exactly what the Services hold, Services kept across
// an upgrade step, the kubernetes Service's shape (KEP-2438) and the Warning events by
// reason. test/cluster-check runs it against any cluster; test/bench and the
// upgrade harness use its pieces; the e2e suite shares the kubernetes Service rules.
package clustercheck
