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

// Package storage keeps a netfork allocation map in etcd. It stands where
// upstream keeps k8s.io/kubernetes/pkg/registry/core/service/allocator/storage
// (v1.37.2), whose Etcd it replaces with one that keeps upstream's storage
// format exactly: one api.RangeAllocation per range at upstream's keys
// (/ranges/serviceips, /ranges/secondaryserviceips, /ranges/servicenodeports
// under the storage prefix), Data the map's snapshot bytes, every change a
// compare-and-swap on the object's resourceVersion, so upstream bitmap-mode
// apiservers and netfork ones can share the objects. It differs from upstream
// where upstream misleads or wastes work:
//
//   - Init checks the stored object at start-up and fails with one line naming
//     the key, both ranges and the flag (a *StoredRangeError) when the stored
//     range or family is not the configured one; upstream starts and then
//     refuses allocations with "the provided network does not match the current range".
//   - A stored object that does not decode is logged with its key and removed
//     (only when it really cannot be decoded) so the repair loop rebuilds it
//     from the Services; Data with bits past the range is logged and rewritten
//     by the repair loop. Upstream's repair loop fails on both forever.
//   - The map is restored from etcd only when another writer changed the
//     object, and the last written object seeds the next compare-and-swap, so
//     an uncontended allocation is one etcd round trip and no full decode.
//   - A failed write leaves the map marked stale, so an allocation that was not
//     stored is never written later by accident.
//   - Changes that queue while a write is in flight are stored together by
//     the next compare-and-swap (group commit), each caller getting its own
//     change's result; upstream writes the whole object once per change,
//     serialized, which caps NodePort allocation at one etcd round trip each.
package storage
