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
	"context"
	"fmt"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/rangeallocation"
)

// Bitmap is a range bitmap of items T (ClusterIPs, node ports) as a repair
// pass reads the stored one and rebuilds another from the Services.
type Bitmap[T any] interface {
	Has(item T) bool
	Allocate(item T) error
	ForEach(fn func(item T))
	Snapshot(dst *api.RangeAllocation) error
}

// StoredBitmap is one bitmap a repair loop rebuilds from the Services at every
// pass, with the leaks its last saved pass found. K keys an item in the leaks.
type StoredBitmap[T any, K comparable] struct {
	// Registry is where the bitmap is stored; Key names it in logs and errors.
	Registry rangeallocation.RangeRegistry
	Key      string
	// Range is the configured range: what an empty bitmap covers, and the
	// range of a bitmap never written.
	Range string
	// Noun is what the bitmap holds ("ClusterIP", "NodePort") and LogKey an
	// item's key in log lines ("ip", "port").
	Noun, LogKey string
	// Decode reads a stored bitmap; Empty makes an empty one of Range.
	Decode func(*api.RangeAllocation) (Bitmap[T], error)
	Empty  func() (Bitmap[T], error)
	// LeakKey is an item's key in the leaks; Leaked counts an item released
	// because its grace ran out.
	LeakKey func(T) K
	Leaked  func()

	leaks Leaks[K]
}

// BitmapPass is one pass over a StoredBitmap.
type BitmapPass[T any, K comparable] struct {
	bitmap *StoredBitmap[T, K]
	// snap is the stored bitmap, rewritten with Rebuilt on Save.
	snap *Snapshot
	// Stored decodes snap; Rebuilt collects the items of the Services.
	Stored, Rebuilt Bitmap[T]
	// leaks is this pass's successor of bitmap.leaks.
	leaks Leaks[K]
}

// Read starts a pass over b: the stored bitmap and an empty one to rebuild. A
// stored bitmap that cannot be decoded is logged and rebuilt from scratch.
func (b *StoredBitmap[T, K]) Read(ctx context.Context) (*BitmapPass[T, K], error) {
	snap, err := Read(b.Registry, b.Range)
	if err != nil {
		return nil, fmt.Errorf("reading the %s bitmap %s: %w", b.Noun, b.Key, err)
	}
	p := &BitmapPass[T, K]{bitmap: b, snap: snap, leaks: Leaks[K]{}}
	if p.Stored, err = b.Decode(snap.Bitmap); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, fmt.Sprintf("Stored %s bitmap cannot be read; rebuilding it from the Services", b.Noun),
			"key", b.Key, "storedRange", snap.Bitmap.Range, "range", b.Range)
		if p.Stored, err = b.Empty(); err != nil {
			return nil, fmt.Errorf("creating an empty %s bitmap for %s: %w", b.Noun, b.Range, err)
		}
	}
	if p.Rebuilt, err = b.Empty(); err != nil {
		return nil, fmt.Errorf("creating the %s bitmap for %s: %w", b.Noun, b.Range, err)
	}
	return p, nil
}

// HoldLeaks keeps, for their grace, the items allocated in the stored bitmap
// that no Service uses, and releases those whose grace has run out.
func (p *BitmapPass[T, K]) HoldLeaks(ctx context.Context) {
	logger := klog.FromContext(ctx)
	b := p.bitmap
	var leaked []T
	p.Stored.ForEach(func(item T) {
		if !p.Rebuilt.Has(item) {
			leaked = append(leaked, item)
		}
	})
	for _, item := range leaked {
		hold, seen := b.leaks.Observe(b.LeakKey(item), p.leaks)
		if !hold {
			b.Leaked()
			logger.Error(nil, b.Noun+" appears to have leaked: cleaning up", b.LogKey, item, "key", b.Key, "passes", seen)
			continue
		}
		if seen == 1 {
			logger.Error(nil, b.Noun+" may have leaked: flagging for later clean up", b.LogKey, item, "key", b.Key)
		}
		if err := p.Rebuilt.Allocate(item); err != nil {
			// Not counted: if it is a leak it is counted when its grace runs out.
			logger.Error(err, b.Noun+" may have leaked, but cannot be held", b.LogKey, item, "key", b.Key)
		}
	}
}

// Save stores the rebuilt bitmap unless it is what is stored already, and
// then keeps this pass's leaks for the next. A concurrent change to the bitmap
// makes it fail with a conflict.
func (p *BitmapPass[T, K]) Save(ctx context.Context) error {
	b := p.bitmap
	if err := p.Rebuilt.Snapshot(p.snap.Bitmap); err != nil {
		return fmt.Errorf("encoding the %s bitmap %s: %w", b.Noun, b.Key, err)
	}
	wrote, err := p.snap.Save(b.Registry)
	if err != nil {
		return fmt.Errorf("writing the %s bitmap %s: %w", b.Noun, b.Key, err)
	}
	if wrote {
		klog.FromContext(ctx).V(2).Info("Stored the repaired "+b.Noun+" bitmap", "key", b.Key, "range", p.snap.Bitmap.Range)
	}
	b.leaks = p.leaks
	return nil
}

// Range is the configured range of the bitmap the pass rebuilds.
func (p *BitmapPass[T, K]) Range() string {
	return p.bitmap.Range
}
