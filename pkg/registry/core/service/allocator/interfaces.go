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

package allocator

import (
	"errors"
	"fmt"

	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
)

// Banded is an upstream allocator that also reports the KEP-3070/KEP-3668 band
// of its values, so an etcd-backed wrapper can offer the same view as the
// in-memory AllocationMap to netfork's ipallocator and portallocator.
type Banded interface {
	upstreamallocator.Interface

	// BandSize is the number of offsets in the static band [0, BandSize()).
	BandSize() int
	// BandOf is the band offset belongs to, BandNone when it is outside the map.
	BandOf(offset int) Band
	// Used is how many offsets are allocated in each band.
	Used() (static, dynamic int)
}

// ErrOutOfRange is wrapped by the error Allocate returns for an offset outside [0, size).
var ErrOutOfRange = errors.New("offset out of range")

// RangeMismatchError is what Restore returns when a snapshot was taken over a
// different range, so callers can tell a reconfigured range (errors.As) from
// corrupt data and log both ranges.
type RangeMismatchError struct {
	// Stored is the range of the snapshot handed to Restore.
	Stored string
	// Configured is the range the map was created with.
	Configured string
}

func (e *RangeMismatchError) Error() string {
	return fmt.Sprintf("stored range %q does not match configured range %q", e.Stored, e.Configured)
}
