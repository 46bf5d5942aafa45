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

package dualstack

import (
	"context"
	"errors"
	"net/netip"
)

// Resolver looks up a name's addresses of one family, network being "ip4"
// or "ip6"; *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

var (
	// ErrNoPodAddress is returned when the pod has no global unicast address
	// of either family, so no apiserver address can be reachable from it.
	ErrNoPodAddress = errors.New("the pod has no global unicast IPv4 or IPv6 address")
	// ErrNoServiceAddress is returned when the kubernetes Service has no
	// address of the only family the pod has: the Service is single-stack.
	ErrNoServiceAddress = errors.New("the kubernetes Service has no address of the pod's IP family")
)
