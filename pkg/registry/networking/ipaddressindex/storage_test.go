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

package ipaddressindex_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/apis/networking"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	ipaddressstore "k8s.io/kubernetes/pkg/registry/networking/ipaddress/storage"

	"github.com/netfork/netfork/pkg/registry/core/service/allocator/storage/storagetest"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
)

func TestMain(m *testing.M) {
	os.Exit(storagetest.Main(m))
}

// pausingStorage is a storage whose watches the test closes, as a watch
// cache that reinitializes or a lost etcd connection closes them, and whose
// new watches wait until the test lets them start.
type pausingStorage struct {
	storage.Interface

	mu      sync.Mutex
	watches []watch.Interface
	resume  chan struct{} // nil when not paused
	started int
}

func (s *pausingStorage) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	resume := s.resume
	s.mu.Unlock()
	if resume != nil {
		select {
		case <-resume:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	w, err := s.Interface.Watch(ctx, key, opts)
	if err == nil {
		s.mu.Lock()
		s.watches = append(s.watches, w)
		s.started++
		s.mu.Unlock()
	}
	return w, err
}

// pause closes the open watches and holds new ones until the function it returns is called.
func (s *pausingStorage) pause() (resume func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{})
	s.resume = ch
	for _, w := range s.watches {
		w.Stop()
	}
	s.watches = nil
	return func() {
		s.mu.Lock()
		s.resume = nil
		s.mu.Unlock()
		close(ch)
	}
}

type optionsGetter struct{ opts generic.RESTOptions }

func (g optionsGetter) GetRESTOptions(schema.GroupResource, runtime.Object) (generic.RESTOptions, error) {
	return g.opts, nil
}

// newStore is the IPAddress registry store, as upstream builds it, on the
// test etcd, with or without a watch cache, its storage a pausingStorage.
func newStore(t *testing.T, st storagetest.Storage, decorator generic.StorageDecorator) (*genericregistry.Store, *pausingStorage) {
	t.Helper()
	config, err := st.Factory.NewConfig(networking.Resource("ipaddresses"), &networking.IPAddress{})
	if err != nil {
		t.Fatal(err)
	}
	pausing := &pausingStorage{}
	decorate := func(config *storagebackend.ConfigForResource, prefix string, keyFunc func(runtime.Object) (string, error),
		newFunc, newListFunc func() runtime.Object, attrs storage.AttrFunc, trigger storage.IndexerFuncs, indexers *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
		s, destroy, err := decorator(config, prefix, keyFunc, newFunc, newListFunc, attrs, trigger, indexers)
		pausing.Interface = s
		return pausing, destroy, err
	}
	ipAddresses, err := ipaddressstore.NewREST(optionsGetter{generic.RESTOptions{StorageConfig: config, Decorator: decorate, ResourcePrefix: "ipaddresses"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ipAddresses.DestroyFunc)
	return ipAddresses.Store, pausing
}

func create(ctx context.Context, t *testing.T, store *genericregistry.Store, name string) {
	t.Helper()
	obj := &networking.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       networking.IPAddressSpec{ParentRef: &networking.ParentReference{Resource: "services", Namespace: "default", Name: "svc-" + name}},
	}
	if _, err := store.Create(ctx, obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating IPAddress %s: %v", name, err)
	}
}

func remove(ctx context.Context, t *testing.T, store *genericregistry.Store, name string) {
	t.Helper()
	if _, _, err := store.Delete(ctx, name, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting IPAddress %s: %v", name, err)
	}
}

// stored is "name uid resourceVersion" of every IPAddress in etcd, sorted.
func stored(ctx context.Context, t *testing.T, store *genericregistry.Store) []string {
	t.Helper()
	obj, err := store.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range obj.(*networking.IPAddressList).Items {
		out = append(out, fmt.Sprintf("%s %s %s", a.Name, a.UID, a.ResourceVersion))
	}
	slices.Sort(out)
	return out
}

// indexed is what stored describes, as the index holds it.
func indexed(t *testing.T, x *ipaddressindex.Index) []string {
	t.Helper()
	list, err := x.Lister().List(labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range list {
		out = append(out, fmt.Sprintf("%s %s %s", a.Name, a.UID, a.ResourceVersion))
	}
	slices.Sort(out)
	return out
}

// deletes counts the delete events a handler saw, by whether they came as tombstones (a relist).
type deletes struct {
	mu            sync.Mutex
	plain, tombed int
}

func (d *deletes) OnAdd(any, bool)   {}
func (d *deletes) OnUpdate(any, any) {}
func (d *deletes) OnDelete(obj any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		d.tombed++
		return
	}
	d.plain++
}

func (d *deletes) counts() (plain, tombed int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.plain, d.tombed
}

// waitSame waits until the index holds what etcd holds.
func waitSame(ctx context.Context, t *testing.T, what string, store *genericregistry.Store, x *ipaddressindex.Index) {
	t.Helper()
	var got, want []string
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		got, want = indexed(t, x), stored(ctx, t, store)
		return x.HasSynced() && slices.Equal(got, want), nil
	}); err != nil {
		t.Fatalf("waiting for %s: the index holds %q, etcd %q: %v", what, got, want, err)
	}
}

// TestIndexFollowsStorage binds the Index to the IPAddress storage, with and
// without a watch cache (--watch-cache=false), and checks it holds exactly
// what etcd holds: after the first list; after its watch is closed (a watch
// cache reinitializing closes its watchers) while IPAddresses are created and
// deleted and etcd is compacted past the last revision it saw, so that
// without a watch cache its next watch is too old and it relists; and with
// the writes that follow.
func TestIndexFollowsStorage(t *testing.T) {
	for _, tc := range []struct {
		name      string
		decorator generic.StorageDecorator
		// relists is whether the compaction makes the Index relist: with a
		// watch cache, the cache's history serves the next watch instead.
		relists bool
	}{
		{"watch cache", genericregistry.StorageWithCacher(), false},
		{"no watch cache", generic.UndecoratedStorage, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// What the API handlers give a create of a cluster-scoped object.
			ctx := genericapirequest.WithRequestInfo(genericapirequest.WithNamespace(genericapirequest.NewContext(), metav1.NamespaceNone),
				&genericapirequest.RequestInfo{APIGroup: "networking.k8s.io", APIVersion: "v1", Resource: "ipaddresses"})
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			st := storagetest.New(t)
			store, pausing := newStore(t, st, tc.decorator)
			for _, name := range []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"} {
				create(ctx, t, store, name)
			}

			x := ipaddressindex.New(fake.NewClientset())
			if err := x.Bind(store); err != nil {
				t.Fatal(err)
			}
			seen := &deletes{}
			if _, err := x.AddEventHandler(seen); err != nil {
				t.Fatal(err)
			}
			x.Start(ctx)
			waitSame(ctx, t, "the first list", store, x)
			create(ctx, t, store, "10.0.0.4")
			waitSame(ctx, t, "a watched create", store, x)

			resume := pausing.pause()
			remove(ctx, t, store, "10.0.0.1")
			create(ctx, t, store, "10.0.0.5")
			remove(ctx, t, store, "10.0.0.2")
			create(ctx, t, store, "10.0.0.2") // the same name, a new object
			compact(ctx, t)
			resume()
			waitSame(ctx, t, "the index to catch up", store, x)

			// A relist sees 10.0.0.2 replaced, not deleted; a watch sees both deletes.
			plain, tombed := seen.counts()
			if tc.relists && (tombed != 1 || plain != 0) {
				t.Errorf("deletes: %d from a watch, %d from a relist; want 1 from a relist", plain, tombed)
			}
			if !tc.relists && (plain != 2 || tombed != 0) {
				t.Errorf("deletes: %d from a watch, %d from a relist; want 2 from the watch", plain, tombed)
			}

			remove(ctx, t, store, "10.0.0.4")
			create(ctx, t, store, "10.0.0.6")
			waitSame(ctx, t, "the writes after", store, x)
		})
	}
}

// compact compacts the test etcd at its current revision.
func compact(ctx context.Context, t *testing.T) {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{storagetest.ClientURL(t)}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	resp, err := client.Get(ctx, "/compact-revision-probe")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		t.Fatalf("compacting etcd at %d: %v", resp.Header.Revision, err)
	}
}
