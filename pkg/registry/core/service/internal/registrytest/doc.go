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

// Package registrytest holds what the tests of netfork's ClusterIP and NodePort
// allocators and repair loops share: a RangeRegistry kept in memory with etcd's
// optimistic concurrency, an events recorder, counter readers, the checks of
// metric registration over upstream's collectors, and the runs of a repair
// loop (first pass, transient first-pass errors, stop, events reaching the
// API, a leak's grace). It replaces nothing upstream; only tests import it.
package registrytest
