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

// Package framework runs netfork's integration tests: one embedded etcd per test
// package (EtcdMain, from TestMain), netfork kube-apiservers started in-process per
// test on random loopback ports, and upstream's own kube-apiserver at the release
// go.mod pins (k8s.io/kubernetes), built from this module's graph, as a process on
// the same etcd for skew tests.
package framework
