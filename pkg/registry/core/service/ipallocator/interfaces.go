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

package ipallocator

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"

	"github.com/netfork/netfork/pkg/registry/internal/jointwrite"
)

// IPAddressWriter creates and deletes the IPAddress objects the CIDRAllocator
// commits and releases: in the apiserver netfork's in-process
// ipaddresswriter.Writer, elsewhere a client's IPAddresses().
type IPAddressWriter interface {
	Create(ctx context.Context, obj *networkingv1.IPAddress, opts metav1.CreateOptions) (*networkingv1.IPAddress, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// IPAddressPreparer is an IPAddressWriter that can leave an IPAddress's etcd
// create or delete to the Service storage of slot, which writes it in the
// Service's own transaction. It returns jointwrite.ErrCannotPrepare when it cannot.
type IPAddressPreparer interface {
	Prepare(ctx context.Context, slot *jointwrite.Slot, obj *networkingv1.IPAddress) (*networkingv1.IPAddress, *jointwrite.Prepared, error)
	PrepareDelete(ctx context.Context, slot *jointwrite.Slot, name string) (*jointwrite.Prepared, error)
}

// Interface is upstream's ClusterIP allocator interface, which the Service
// storage and upstream's MetaAllocator call; Range implements it.
type Interface = upstreamipallocator.Interface

// The errors Range returns are upstream's own values and types, not copies:
// the Service storage (k8s.io/kubernetes/pkg/registry/core/service/storage)
// tells them apart with errors.Is and puts their text into the 422 or 500 it
// returns, so they must be identical for the API to answer as upstream does.
var (
	// ErrFull is returned by AllocateNext when no address is free; the Service storage answers 500 for it.
	ErrFull = upstreamipallocator.ErrFull
	// ErrAllocated is returned by Allocate for an address already in use.
	ErrAllocated = upstreamipallocator.ErrAllocated
	// ErrMismatchedNetwork is wrapped by Restore when handed another range.
	ErrMismatchedNetwork = upstreamipallocator.ErrMismatchedNetwork
)

// ErrNotInRange is returned by Allocate for an address the range cannot hand
// out: outside the CIDR, its network or IPv4 broadcast address, another
// family, or past the 2^16 addresses an IPv6 bitmap keeps.
type ErrNotInRange = upstreamipallocator.ErrNotInRange
