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

// Package portallocator is netfork's NodePort allocator. It stands where
// upstream keeps k8s.io/kubernetes/pkg/registry/core/service/portallocator
// (v1.37.2), whose PortAllocator it replaces with one of the same interface,
// errors and metrics on netfork's allocation map (allocator.AllocationMap),
// whose AllocateNext stays O(1) when the KEP-3668 dynamic band is nearly full
// where upstream's walks it. NewStored is the seam through which netfork's
// core storage gets its NodePort allocator.
package portallocator
