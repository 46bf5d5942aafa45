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
	"os"
	"path"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/netfork/netfork/pkg/registry/core/service/allocator"
	"github.com/netfork/netfork/pkg/registry/core/service/allocator/storage/storagetest"
)

// testKey is the key fixtures store their bitmap at, upstream's primary ClusterIP key.
const testKey = "/ranges/serviceips"

func TestMain(m *testing.M) {
	os.Exit(storagetest.Main(m))
}

// testStorage is one test's storage: what the seam passes to New, and where its keys live in etcd.
type testStorage struct {
	config *storagebackend.ConfigForResource
	prefix string
}

func newTestStorage(t testing.TB) testStorage {
	t.Helper()
	s := storagetest.New(t)
	return testStorage{config: s.ServiceIPs, prefix: s.Prefix}
}

// newBinding is an Etcd over a fresh map of size offsets and band static ones at key.
func (s testStorage) newBinding(t testing.TB, size, band int, rangeSpec string, opts ...Option) *Etcd {
	t.Helper()
	m, err := allocator.NewAllocationMap(size, rangeSpec, band)
	if err != nil {
		t.Fatalf("NewAllocationMap: %v", err)
	}
	e, err := New(m, testKey, s.config, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(e.Destroy)
	return e
}

// rawKey is where key is in etcd.
func (s testStorage) rawKey(key string) string {
	return path.Join(s.prefix, key)
}

// etcdClient dials the package's etcd for raw reads and writes.
func etcdClient(t testing.TB) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{storagetest.ClientURL(t)}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("clientv3.New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// seed stores obj at key as the apiserver would.
func (s testStorage) seed(t testing.TB, obj *api.RangeAllocation) {
	t.Helper()
	e := s.newBinding(t, 0, 0, obj.Range)
	if err := e.storage.Create(context.Background(), testKey, obj, nil, 0); err != nil {
		t.Fatalf("seeding %s: %v", testKey, err)
	}
}

// stored is the object at key, failing the test when there is none.
func stored(t testing.TB, e *Etcd) *api.RangeAllocation {
	t.Helper()
	obj, err := e.Get()
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if obj.ResourceVersion == "" {
		t.Fatalf("Get: nothing stored at %s", testKey)
	}
	return obj
}
