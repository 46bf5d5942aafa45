package storage

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	serveroptions "k8s.io/apiserver/pkg/server/options"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/kubeapiserver"

	"github.com/netfork/netfork/internal/etcd"
	"github.com/netfork/netfork/pkg/registry/core/service/allocator"
)

// testEtcdURL is the client URL of the embedded etcd TestMain starts for the package.
var testEtcdURL string

// testKey is the key fixtures store their bitmap at, upstream's primary ClusterIP key.
const testKey = "/ranges/serviceips"

func TestMain(m *testing.M) {
	os.Exit(runWithEtcd(m))
}

// runWithEtcd runs the tests against one embedded etcd, removed afterwards.
func runWithEtcd(m *testing.M) int {
	dir, err := os.MkdirTemp("", "netfork-allocator-storage-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	server, err := etcd.Start(ctx, etcd.Config{DataDir: dir, UnsafeNoFsync: true, LogFile: os.DevNull})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer server.Stop()
	testEtcdURL = server.ClientURL
	return m.Run()
}

// prefixes makes each test's storage prefix unique, so tests share etcd and nothing else.
var prefixes atomic.Int64

// testStorage is one test's storage: what the seam passes to New, and where its keys live in etcd.
type testStorage struct {
	config *storagebackend.ConfigForResource
	prefix string
}

// newTestStorage builds the storage config the way the apiserver builds it
// for serviceipallocations (the storage factory, protobuf, the services'
// storage config), under a prefix of the test's own.
func newTestStorage(t testing.TB) testStorage {
	t.Helper()
	prefix := fmt.Sprintf("/registry-%s-%d", strings.ReplaceAll(t.Name(), "/", "_"), prefixes.Add(1))
	backend := storagebackend.NewDefaultConfig(prefix, nil)
	backend.Transport.ServerList = []string{testEtcdURL}
	opts := serveroptions.NewEtcdOptions(backend)
	completed := kubeapiserver.NewStorageFactoryConfig().Complete(opts)
	completed.APIResourceConfig = serverstorage.NewResourceConfig()
	factory, err := completed.New()
	if err != nil {
		t.Fatalf("storage factory: %v", err)
	}
	services, err := factory.NewConfig(api.Resource("services"), &api.Service{})
	if err != nil {
		t.Fatalf("storage config for services: %v", err)
	}
	return testStorage{config: services.ForResource(api.Resource("serviceipallocations")), prefix: prefix}
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
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{testEtcdURL}, DialTimeout: 10 * time.Second})
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
