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

package storage

import (
	"errors"
	"fmt"
	"net/netip"

	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
)

// Map is the in-memory allocation map an Etcd keeps in step with etcd:
// netfork's allocator.AllocationMap.
type Map interface {
	upstreamallocator.Snapshottable
	// Size is the number of offsets the map holds, to spot stored data with bits past it.
	Size() int
}

// errUnableToAllocate is a change's result when the map refused it; the change is not written.
var errUnableToAllocate = errors.New("unable to allocate")

// StoredRangeError is Init's error when the object stored at Key was written
// for another range than the configured one: the operator changed a flag, or
// the secondary range changed family.
type StoredRangeError struct {
	// Key is the etcd key below the storage prefix, e.g. /ranges/serviceips.
	Key string
	// What names the object, e.g. "ClusterIP bitmap".
	What string
	// Flag names where the configured range comes from, e.g. --service-cluster-ip-range.
	Flag string
	// Stored and Configured are the two ranges as RangeAllocation.Range spells them.
	Stored, Configured string
}

func (e *StoredRangeError) Error() string {
	return fmt.Sprintf("stored %s %s holds %s but %s says %s: set %s back to %s, "+
		"or, to move to the new range, delete %s from etcd so the repair loop rebuilds it from the Services "+
		"(Services outside the new range keep their values and are reported by the repair loop)",
		e.What, e.Key, describeRange(e.Stored), e.Flag, describeRange(e.Configured), e.Flag, e.Stored, e.Key)
}

// describeRange is rangeSpec with its family when it is a CIDR, so a family
// swap between the primary and secondary range is plain in the message.
func describeRange(rangeSpec string) string {
	prefix, err := netip.ParsePrefix(rangeSpec)
	switch {
	case err != nil:
		return "range " + rangeSpec
	case prefix.Addr().Is4():
		return "IPv4 range " + rangeSpec
	default:
		return "IPv6 range " + rangeSpec
	}
}
