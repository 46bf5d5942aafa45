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

// Package features owns the feature gates netfork adds to upstream's
// k8s.io/kubernetes/pkg/features (v1.37.2) and the two it unlocks.
//
// Upstream 1.37 locks MultiCIDRServiceAllocator and DisableAllocatorDualWrite
// to true, and a locked spec cannot be set in upstream's gate. Gate is the
// kube component's gate of one apiserver: registered in the component
// registry in place of upstream's, it answers those two (with upstream's own
// versioned specs, unlocked) and DualStackAPIServer itself and hands every
// other feature to upstream's gate, so --feature-gates, --emulated-version
// and the kubernetes_feature_enabled metric all go through upstream's code.
// netfork's code receives the Gate in its configuration; upstream code that
// reads the process-wide utilfeature.DefaultFeatureGate keeps seeing the two
// locked to true, which docs/differences.md lists read by read.
package features
