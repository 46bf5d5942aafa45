package ipallocator

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"
)

// IPAddressWriter creates and deletes the IPAddress objects the CIDRAllocator
// commits and releases: in the apiserver netfork's in-process
// ipaddresswriter.Writer, elsewhere a client's IPAddresses().
type IPAddressWriter interface {
	Create(ctx context.Context, obj *networkingv1.IPAddress, opts metav1.CreateOptions) (*networkingv1.IPAddress, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
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
