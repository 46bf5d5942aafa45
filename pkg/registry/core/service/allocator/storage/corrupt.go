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
	"math/bits"
	"strings"

	apiserverfeatures "k8s.io/apiserver/pkg/features"
	apistorage "k8s.io/apiserver/pkg/storage"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	api "k8s.io/kubernetes/pkg/apis/core"
)

// undecodableMessage starts the etcd3 store's error for stored bytes that do
// not decode (k8s.io/apiserver/pkg/storage/etcd3 corrupt_obj_deleter.go).
// The store reports bytes it cannot transform (say, with the KMS plugin
// down) as corrupt too, but those may read fine a minute later and must
// never be removed, and only the message tells the two apart. Should upstream
// reword it, netfork stops removing undecodable objects, which is safe.
const undecodableMessage = "object not decodable"

// undecodable tells whether err says the stored bytes do not decode.
func undecodable(err error) bool {
	return err != nil && strings.Contains(err.Error(), undecodableMessage)
}

// removeIfUndecodable deletes the stored object when, and only when, etcd
// holds bytes that do not decode, which nothing can read and upstream's
// repair loop cannot overwrite. It uses the store's unsafe deletion of
// malformed objects (AllowUnsafeMalformedObjectDeletion, on by default in
// 1.37), which refuses to delete an object that decodes. It logs
// what it did and returns true when the object is gone.
func (e *Etcd) removeIfUndecodable(ctx context.Context, readErr error) bool {
	if !apistorage.IsCorruptObject(readErr) || !undecodable(readErr) {
		return false
	}
	logger := e.logger.WithValues("object", e.what)
	if !utilfeature.DefaultFeatureGate.Enabled(apiserverfeatures.AllowUnsafeMalformedObjectDeletion) {
		logger.Error(readErr, "Stored object cannot be decoded; delete the key with etcdctl, or enable AllowUnsafeMalformedObjectDeletion, so the repair loop can rebuild it")
		return false
	}
	err := e.storage.Delete(ctx, e.key, &api.RangeAllocation{}, nil, apistorage.ValidateAllObjectFunc, nil,
		apistorage.DeleteOptions{ExpectTransformOrDecodeError: true})
	switch {
	case err == nil:
		e.last = nil
		logger.Error(readErr, "Stored object could not be decoded and was removed; the repair loop rebuilds it from the Services")
		return true
	case apistorage.IsNotFound(err):
		e.last = nil
		return true
	case apistorage.IsInvalidObj(err):
		return false // it decodes: readErr was something else
	default:
		logger.Error(err, "Stored object cannot be read, and removing it failed", "readErr", readErr)
		return false
	}
}

// reportBadData logs, once per stored version, data with offsets past the
// map's size, which a writer with another range or a corruption put there.
// The map keeps those bits and writes them back, as upstream's bitmap does,
// until the repair loop replaces the object with one rebuilt from the Services.
func (e *Etcd) reportBadData(stored *api.RangeAllocation) {
	if stored.ResourceVersion == e.reportedRV || bitLen(stored.Data) <= e.alloc.Size() {
		return
	}
	e.reportedRV = stored.ResourceVersion
	e.logger.Error(nil, "Stored data marks values past the end of the range; the repair loop rewrites it from the Services",
		"object", e.what, "range", stored.Range, "size", e.alloc.Size(), "bits", bitLen(stored.Data))
}

// bitLen is the number of bits of the big-endian integer data, so offsets up to bitLen-1 may be set.
func bitLen(data []byte) int {
	for i, c := range data {
		if c != 0 {
			return 8*(len(data)-i-1) + bits.Len8(c)
		}
	}
	return 0
}
