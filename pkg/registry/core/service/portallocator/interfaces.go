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

package portallocator

import (
	upstreamportallocator "k8s.io/kubernetes/pkg/registry/core/service/portallocator"
)

// Interface is upstream's NodePort allocator interface, which the Service
// storage calls through upstream's PortAllocationOperation; PortAllocator implements it.
type Interface = upstreamportallocator.Interface

// The errors PortAllocator returns are upstream's own values and types: the
// Service storage (k8s.io/kubernetes/pkg/registry/core/service/storage) puts
// their text into the 422 it returns for a requested NodePort, so they must be
// identical for the API to answer as upstream does.
var (
	// ErrFull is returned by AllocateNext when no port is free.
	ErrFull = upstreamportallocator.ErrFull
	// ErrAllocated is returned by Allocate for a port already in use.
	ErrAllocated = upstreamportallocator.ErrAllocated
	// ErrMismatchedNetwork is wrapped by Restore when handed another port range.
	ErrMismatchedNetwork = upstreamportallocator.ErrMismatchedNetwork
)

// ErrNotInRange is returned by Allocate for a port outside the range.
type ErrNotInRange = upstreamportallocator.ErrNotInRange
