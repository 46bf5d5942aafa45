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
	"net"

	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"
)

// dryRunRange answers a dry-run request the way upstream's does, so a
// dry-run Service create or update gets the answer it gets from upstream:
// Allocate rejects only an address the range cannot hold (it does not look for
// a collision, which a real request may still meet), AllocateNext returns the
// range's own address without picking one, and nothing is ever changed.
type dryRunRange struct {
	real *Range
}

func (d dryRunRange) Allocate(ip net.IP) error {
	if d.real.offset(ip) < 0 {
		return &ErrNotInRange{IP: ip, ValidRange: d.real.rangeSpec}
	}
	return nil
}

func (d dryRunRange) AllocateNext() (net.IP, error) {
	return d.real.cidr.IP, nil
}

func (d dryRunRange) Release(net.IP) error {
	return nil
}

func (d dryRunRange) ForEach(fn func(net.IP)) {
	d.real.ForEach(fn)
}

func (d dryRunRange) CIDR() net.IPNet {
	return d.real.CIDR()
}

func (d dryRunRange) IPFamily() api.IPFamily {
	return d.real.IPFamily()
}

func (d dryRunRange) Has(ip net.IP) bool {
	return d.real.Has(ip)
}

func (d dryRunRange) DryRun() upstreamipallocator.Interface {
	return d
}

// Destroy does nothing: the range belongs to its real allocator.
func (d dryRunRange) Destroy() {}

// EnableMetrics does nothing: dry runs are not counted, as upstream does not count them.
func (d dryRunRange) EnableMetrics() {}
