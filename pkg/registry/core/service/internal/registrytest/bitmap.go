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

package registrytest

import (
	"fmt"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	api "k8s.io/kubernetes/pkg/apis/core"
)

// ErrConflict is what Bitmap.CreateOrUpdate returns for a stale write, as etcd would.
var ErrConflict = apierrors.NewConflict(api.Resource("rangeallocations"), "", fmt.Errorf("the object has been modified"))

// Bitmap is a RangeRegistry kept in memory with etcd's optimistic
// concurrency: a write whose resourceVersion is not the stored one conflicts.
type Bitmap struct {
	mu     sync.Mutex
	Stored *api.RangeAllocation // nil until written
	rv     int
	// GetErrs and WriteErrs are returned, in order, before Get and CreateOrUpdate answer for real.
	GetErrs   []error
	WriteErrs []error
	Writes    int
}

// NewBitmap is a Bitmap holding stored at resourceVersion 1.
func NewBitmap(stored *api.RangeAllocation) *Bitmap {
	stored.ResourceVersion = "1"
	return &Bitmap{Stored: stored, rv: 1}
}

// Get returns the next of GetErrs, else a copy of the stored bitmap.
func (f *Bitmap) Get() (*api.RangeAllocation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.GetErrs) > 0 {
		err := f.GetErrs[0]
		f.GetErrs = f.GetErrs[1:]
		return nil, err
	}
	if f.Stored == nil {
		return &api.RangeAllocation{}, nil
	}
	return f.Stored.DeepCopy(), nil
}

// CreateOrUpdate returns the next of WriteErrs, else stores a at a new
// resourceVersion unless a is stale.
func (f *Bitmap) CreateOrUpdate(a *api.RangeAllocation) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.WriteErrs) > 0 {
		err := f.WriteErrs[0]
		f.WriteErrs = f.WriteErrs[1:]
		return err
	}
	current := ""
	if f.Stored != nil {
		current = f.Stored.ResourceVersion
	}
	if a.ResourceVersion != current {
		return ErrConflict
	}
	f.rv++
	f.Stored = a.DeepCopy()
	f.Stored.ResourceVersion = strconv.Itoa(f.rv)
	f.Writes++
	return nil
}

// Current is a copy of the stored bitmap, nil if it was never written.
func (f *Bitmap) Current() *api.RangeAllocation {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Stored == nil {
		return nil
	}
	return f.Stored.DeepCopy()
}
