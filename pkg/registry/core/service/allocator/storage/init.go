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
	"context"
	"fmt"

	apistorage "k8s.io/apiserver/pkg/storage"
	api "k8s.io/kubernetes/pkg/apis/core"
)

// Init reads the stored object at start-up and loads it into the map. It
// returns a *StoredRangeError when the object was written for another range;
// a missing object is created empty with WithCreateIfMissing and otherwise
// left to the repair loop; an undecodable one is removed and logged (see Get).
func (e *Etcd) Init(ctx context.Context) error {
	e.lock.Lock()
	defer e.lock.Unlock()

	stored, err := e.get(ctx)
	if err != nil {
		return fmt.Errorf("reading stored %s %s: %w", e.what, e.key, err)
	}
	if stored.ResourceVersion == "" {
		if !e.createIfMissing {
			return nil
		}
		return e.create(ctx)
	}
	if err := e.restore(stored); err != nil {
		return err
	}
	e.last = stored
	return nil
}

// create stores an empty object for the map's range, unless another
// apiserver just did, which is as good.
func (e *Etcd) create(ctx context.Context) error {
	e.logger.Info("Creating the missing stored object", "object", e.what, "range", e.rangeSpec)
	empty := &api.RangeAllocation{Range: e.rangeSpec}
	out := &api.RangeAllocation{}
	switch err := e.storage.Create(ctx, e.key, empty, out, 0); {
	case err == nil:
		e.last = out
		return nil
	case apistorage.IsExist(err):
		return nil // the next change reads what the other apiserver stored
	default:
		return fmt.Errorf("creating %s %s: %w", e.what, e.key, err)
	}
}
