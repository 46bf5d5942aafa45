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

// Package fidelity runs one scripted Service scenario twice on local-up, once with
// netfork's kube-apiserver and once with upstream's binary of the pinned release, records
// what every observer of the apiserver sees (client responses, admission requests at a
// recording webhook, the audit log, watch events of Services and IPAddresses, deltas of
// allowlisted metrics, priority and fairness's exempt level in a quiet window, the
// allocator's and registry's log lines, and the raw etcd values, decrypted with the key
// before or after a rotation and decoded), normalizes names, addresses, times, resource
// versions and UIDs,
// and fails on any difference that differences.yaml does not list with its reason, and
// on any listed one that no longer shows. `make test-fidelity` (hack/test-fidelity.sh)
// builds both binaries and runs it; without $NETFORK_FIDELITY_UPSTREAM the scenario test
// skips and only the harness's own unit tests run.
package fidelity
