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

package repairloop

import (
	"bytes"

	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/rangeallocation"
)

// Snapshot is a bitmap as a pass read it, remembered so that Save writes only a
// bitmap that changed.
type Snapshot struct {
	// Bitmap is the bitmap read, to be rewritten with the rebuilt one before Save.
	Bitmap *api.RangeAllocation
	data   []byte
	spec   string
}

// Read reads the bitmap in reg. A bitmap never written gets spec as its range:
// nothing is allocated in it yet.
func Read(reg rangeallocation.RangeRegistry, spec string) (*Snapshot, error) {
	snapshot, err := reg.Get()
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Bitmap: snapshot, data: bytes.Clone(snapshot.Data), spec: snapshot.Range}
	if snapshot.Range == "" {
		snapshot.Range = spec
	}
	return s, nil
}

// Save writes Bitmap to reg unless it is what was read, and reports whether it
// wrote. A concurrent change to the bitmap makes it fail with a conflict.
func (s *Snapshot) Save(reg rangeallocation.RangeRegistry) (wrote bool, err error) {
	if s.Bitmap.ResourceVersion != "" && s.Bitmap.Range == s.spec && bytes.Equal(s.Bitmap.Data, s.data) {
		return false, nil
	}
	if err := reg.CreateOrUpdate(s.Bitmap); err != nil {
		return false, err
	}
	return true, nil
}
