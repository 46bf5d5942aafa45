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

// Package app is netfork's kube-apiserver command. It stands in for
// k8s.io/kubernetes/cmd/kube-apiserver/app (v1.37.2) only where that package
// hard-wires upstream's control plane (Run and CreateServerChain); flags,
// options, validation and the extension and aggregator configs are upstream's.
// The command runs Options -> Complete -> Validate -> Config -> Complete -> New -> Run.
package app
