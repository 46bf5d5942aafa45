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
