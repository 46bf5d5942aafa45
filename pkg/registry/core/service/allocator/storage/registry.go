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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	apistorage "k8s.io/apiserver/pkg/storage"
	storeerr "k8s.io/apiserver/pkg/storage/errors"
	api "k8s.io/kubernetes/pkg/apis/core"
)

// This file is upstream's rangeallocation.RangeRegistry, which the repair
// loops use to read the stored object and replace it with a rebuilt one.

// Get is the stored object, with an empty ResourceVersion when none is
// stored. An object that cannot be decoded is removed, logged, and reported
// as missing, so the repair loop's next CreateOrUpdate rebuilds it.
func (e *Etcd) Get() (*api.RangeAllocation, error) {
	e.lock.Lock()
	defer e.lock.Unlock()

	return e.get(context.TODO())
}

func (e *Etcd) get(ctx context.Context) (*api.RangeAllocation, error) {
	existing := &api.RangeAllocation{}
	err := e.storage.Get(ctx, e.key, apistorage.GetOptions{IgnoreNotFound: true}, existing)
	if err == nil {
		e.reportBadData(existing)
		return existing, nil
	}
	if removed := e.removeIfUndecodable(ctx, err); removed {
		return &api.RangeAllocation{}, nil
	}
	return nil, storeerr.InterpretGetError(err, e.resource, "")
}

// CreateOrUpdate stores snapshot and loads it into the map. snapshot's
// ResourceVersion must be the stored one, or empty when none is stored
// (upstream's rules: a Conflict otherwise), and its range the configured one.
func (e *Etcd) CreateOrUpdate(snapshot *api.RangeAllocation) error {
	e.lock.Lock()
	defer e.lock.Unlock()

	if snapshot.Range != e.rangeSpec {
		return e.rangeError(snapshot.Range)
	}
	out := &api.RangeAllocation{}
	err := e.storage.GuaranteedUpdate(context.TODO(), e.key, out, true, nil,
		apistorage.SimpleUpdate(func(input runtime.Object) (runtime.Object, error) {
			existing := input.(*api.RangeAllocation)
			switch {
			case snapshot.ResourceVersion != "" && existing.ResourceVersion != "":
				if snapshot.ResourceVersion != existing.ResourceVersion {
					return nil, apierrors.NewConflict(e.resource, "", fmt.Errorf("the provided resource version does not match"))
				}
			case existing.ResourceVersion != "":
				return nil, apierrors.NewConflict(e.resource, "", fmt.Errorf("another caller has already initialized the resource"))
			}
			return snapshot.DeepCopy(), nil
		}),
		nil,
	)
	if err != nil {
		return storeerr.InterpretUpdateError(err, e.resource, "")
	}
	e.last = nil
	if err := e.alloc.Restore(out.Range, out.Data); err != nil {
		return fmt.Errorf("loading %s %s after writing it: %w", e.what, e.key, err)
	}
	e.last = out
	return nil
}
