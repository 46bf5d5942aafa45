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

// Package controlplane assembles netfork's kube-apiserver on upstream's
// k8s.io/kubernetes/pkg/controlplane (v1.37.2). Upstream's configuration,
// its Complete (discovery addresses, defaults, every endpoint reconciler
// netfork does not change) and its list of storage providers are used as they
// are; netfork replaces, by API group, the core provider (its Service storage)
// and the networking provider (ServiceCIDR checks, in-process IPAddress
// writes), and owns the controllers upstream's Instance starts with no seam:
// the kubernetes-Service controller and the default-ServiceCIDR controller,
// plus its own ServiceCIDR deletion controller. The lines that necessarily
// stand beside upstream's are listed in hack/upstream-shims.txt.
package controlplane
