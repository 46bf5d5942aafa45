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

// Package rest is netfork's REST storage provider for the core ("") API group.
// It wraps the legacy provider of k8s.io/kubernetes/pkg/registry/core/rest
// (v1.37.2): upstream builds every core resource, and netfork swaps in a
// Service storage whose ClusterIP and NodePort allocators, and their repair
// loops, are netfork's (pkg/registry/core/service). Upstream's provider builds
// its own allocators and repair loops internally with no seam; the Service
// storage built on them is destroyed with them, and the control plane hands
// upstream an informer factory that never starts, so those repair loops,
// never run, never see an event either (pkg/controlplane).
package rest
