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

// Package options is netfork's kube-apiserver options: upstream's
// k8s.io/kubernetes/cmd/kube-apiserver/app/options (v1.37.2), embedded as-is,
// plus a second --bind-address and --advertise-address per IP family behind the
// DualStackAPIServer gate (KEP-2438, which upstream never implemented).
//
// It stands in for upstream's ServerRunOptions.Flags, Complete and
// CompletedOptions.Validate only to run netfork's steps around them: Flags wraps
// the two address flags to take a pair, Complete decides the per-family
// addresses before upstream defaults the single ones, Validate adds the
// dual-stack rules after upstream's, and Listen binds both families before
// upstream's SecureServingOptions.ApplyTo would bind one. With the gate off each
// of them is upstream's, and a pair is upstream's parse error.
package options
