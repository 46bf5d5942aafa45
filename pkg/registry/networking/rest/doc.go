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

// Package rest is netfork's networking.k8s.io storage provider. It is
// upstream's (k8s.io/kubernetes/pkg/registry/networking/rest, v1.37.2) with one
// change: ServiceCIDRs netfork's ClusterIP allocator cannot index are refused at
// validation. Upstream's validation accepts a /0 of either family and IPv6
// prefixes shorter than /64, which upstream's own allocator then ignores; a
// ServiceCIDR that can never hand out an address, or covers the whole address
// space, is an error the user should see when creating it, not a silent no-op.
package rest
