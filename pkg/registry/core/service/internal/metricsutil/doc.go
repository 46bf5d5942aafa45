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

// Package metricsutil holds what netfork's ClusterIP and NodePort allocators
// and repair loops share about metrics: registering in the legacy registry next
// to upstream's collectors of the same names
// (k8s.io/kubernetes/pkg/registry/core/service/{ipallocator,portallocator} and
// their controller packages, v1.37.2), which register with MustRegister and so
// panic if netfork's got there first, and recording an allocator's upstream
// metrics (Recorder). It replaces nothing upstream; each package keeps its own
// descriptors.
package metricsutil
