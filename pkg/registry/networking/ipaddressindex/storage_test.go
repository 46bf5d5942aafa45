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
	cacherstorage "k8s.io/apiserver/pkg/storage/cacher"
	cachermetrics "k8s.io/apiserver/pkg/storage/cacher/metrics"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics/testutil"
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
// new watches and lists wait until the test lets them start.
type pausingStorage struct {
	storage.Interface

	mu      sync.Mutex
	watches []watch.Interface
	resume  chan struct{} // nil when not paused
	started int
}

// held waits while the storage is paused.
func (s *pausingStorage) held(ctx context.Context) error {
	s.mu.Lock()
	resume := s.resume
	s.mu.Unlock()
	if resume == nil {
		return nil
	}
	select {
	case <-resume:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *pausingStorage) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	if err := s.held(ctx); err != nil {
		return err
	}
	return s.Interface.GetList(ctx, key, opts, listObj)
}

func (s *pausingStorage) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	if err := s.held(ctx); err != nil {
		return nil, err
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
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.resume = nil
			s.mu.Unlock()
			close(ch)
		})
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
	pausing := &pausingStorage{}
	decorate := func(config *storagebackend.ConfigForResource, prefix string, keyFunc func(runtime.Object) (string, error),
		newFunc, newListFunc func() runtime.Object, attrs storage.AttrFunc, trigger storage.IndexerFuncs, indexers *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
		s, destroy, err := decorator(config, prefix, keyFunc, newFunc, newListFunc, attrs, trigger, indexers)
		pausing.Interface = s
		return pausing, destroy, err
	}
	return newREST(t, st, decorate), pausing
}

// newREST is upstream's IPAddress registry store on the test etcd, its storage decorated by decorate.
func newREST(t *testing.T, st storagetest.Storage, decorate generic.StorageDecorator) *genericregistry.Store {
	t.Helper()
	config, err := st.Factory.NewConfig(networking.Resource("ipaddresses"), &networking.IPAddress{})
	if err != nil {
		t.Fatal(err)
	}
	ipAddresses, err := ipaddressstore.NewREST(optionsGetter{generic.RESTOptions{StorageConfig: config, Decorator: decorate, ResourcePrefix: "ipaddresses"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ipAddresses.DestroyFunc)
	return ipAddresses.Store
}

// newCachedStore is the IPAddress registry store with upstream's watch cache
// (its Cacher and CacheDelegator, as StorageWithCacher puts them together)
// whose own list and watch of etcd go through a pausingStorage, so the test
// can close the cache's watch and hold its relist.
func newCachedStore(t *testing.T, st storagetest.Storage) (*genericregistry.Store, *pausingStorage) {
	t.Helper()
	pausing := &pausingStorage{}
	decorate := func(config *storagebackend.ConfigForResource, prefix string, keyFunc func(runtime.Object) (string, error),
		newFunc, newListFunc func() runtime.Object, attrs storage.AttrFunc, trigger storage.IndexerFuncs, indexers *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
		raw, destroyRaw, err := generic.NewRawStorage(config, newFunc, newListFunc, prefix)
		if err != nil {
			return nil, nil, err
		}
		pausing.Interface = raw
		cacher, err := cacherstorage.NewCacherFromConfig(cacherstorage.Config{
			Storage:             pausing,
			Versioner:           storage.APIObjectVersioner{},
			GroupResource:       config.GroupResource,
			EventsHistoryWindow: storagebackend.DefaultEventsHistoryWindow,
			ResourcePrefix:      prefix,
			KeyFunc:             keyFunc,
			NewFunc:             newFunc,
			NewListFunc:         newListFunc,
			GetAttrsFunc:        attrs,
			IndexerFuncs:        trigger,
			Indexers:            indexers,
			Codec:               config.Codec,
		})
		if err != nil {
			destroyRaw()
			return nil, nil, err
		}
		delegator := cacherstorage.NewCacheDelegator(cacher, raw)
		return delegator, func() {
			delegator.Stop()
			cacher.Stop()
			destroyRaw()
		}, nil
	}
	return newREST(t, st, decorate), pausing
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
func stored(ctx context.Context, store *genericregistry.Store) ([]string, error) {
	obj, err := store.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range obj.(*networking.IPAddressList).Items {
		out = append(out, fmt.Sprintf("%s %s %s", a.Name, a.UID, a.ResourceVersion))
	}
	slices.Sort(out)
	return out, nil
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

// wait waits until the handler has seen plain deletes from a watch and
// tombed from a relist: the Index tells its handlers of a change just after
// its content shows it.
func (d *deletes) wait(ctx context.Context, t *testing.T, plain, tombed int) {
	t.Helper()
	var gotPlain, gotTombed int
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		gotPlain, gotTombed = d.counts()
		return gotPlain == plain && gotTombed == tombed, nil
	}); err != nil {
		t.Fatalf("deletes: %d from a watch, %d from a relist; want %d and %d: %v", gotPlain, gotTombed, plain, tombed, err)
	}
}

// requestContext is what the API handlers give a create of a cluster-scoped object.
func requestContext() (context.Context, context.CancelFunc) {
	ctx := genericapirequest.WithRequestInfo(genericapirequest.WithNamespace(genericapirequest.NewContext(), metav1.NamespaceNone),
		&genericapirequest.RequestInfo{APIGroup: "networking.k8s.io", APIVersion: "v1", Resource: "ipaddresses"})
	return context.WithCancel(ctx)
}

// startIndex creates three IPAddresses through writes, starts an Index that
// reads reads, and waits until it holds them, then a fourth, as etcd does.
// The handler it returns counts the Index's deletes.
func startIndex(ctx context.Context, t *testing.T, reads, writes *genericregistry.Store) (*ipaddressindex.Index, *deletes) {
	t.Helper()
	for _, name := range []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"} {
		create(ctx, t, writes, name)
	}
	x := ipaddressindex.New(fake.NewClientset())
	if err := x.Bind(reads); err != nil {
		t.Fatal(err)
	}
	seen := &deletes{}
	if _, err := x.AddEventHandler(seen); err != nil {
		t.Fatal(err)
	}
	x.Start(ctx)
	waitSame(ctx, t, "the first list", writes, x)
	create(ctx, t, writes, "10.0.0.4")
	waitSame(ctx, t, "a watched create", writes, x)
	seen.wait(ctx, t, 0, 0)
	return x, seen
}

// rewrite is what happens while the Index, or the watch cache it reads,
// does not watch: 10.0.0.1 deleted, 10.0.0.5 created, 10.0.0.2 deleted and
// created again (the same name, a new object), and etcd compacted past it all.
func rewrite(ctx context.Context, t *testing.T, store *genericregistry.Store) {
	t.Helper()
	remove(ctx, t, store, "10.0.0.1")
	create(ctx, t, store, "10.0.0.5")
	remove(ctx, t, store, "10.0.0.2")
	create(ctx, t, store, "10.0.0.2")
	compact(ctx, t)
}

// writeAfter deletes and creates one more IPAddress and waits until the Index has them.
func writeAfter(ctx context.Context, t *testing.T, store *genericregistry.Store, x *ipaddressindex.Index) {
	t.Helper()
	remove(ctx, t, store, "10.0.0.4")
	create(ctx, t, store, "10.0.0.6")
	waitSame(ctx, t, "the writes after", store, x)
}

// waitSame waits until the index holds what etcd holds.
func waitSame(ctx context.Context, t *testing.T, what string, store *genericregistry.Store, x *ipaddressindex.Index) {
	t.Helper()
	var (
		got, want []string
		listErr   error
	)
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		// A store with a watch cache refuses lists until the cache is ready.
		got = indexed(t, x)
		want, listErr = stored(ctx, store)
		return listErr == nil && x.HasSynced() && slices.Equal(got, want), nil
	}); err != nil {
		t.Fatalf("waiting for %s: the index holds %q, etcd %q (listing it: %v): %v", what, got, want, listErr, err)
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
			ctx, cancel := requestContext()
			defer cancel()
			store, pausing := newStore(t, storagetest.New(t), tc.decorator)
			x, seen := startIndex(ctx, t, store, store)

			resume := pausing.pause()
			rewrite(ctx, t, store)
			resume()
			waitSame(ctx, t, "the index to catch up", store, x)

			// A relist sees 10.0.0.2 replaced, not deleted; a watch sees both deletes.
			if tc.relists {
				seen.wait(ctx, t, 0, 1)
			} else {
				seen.wait(ctx, t, 2, 0)
			}
			writeAfter(ctx, t, store, x)
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

// cacheInitializations is how many times the watch caches of IPAddresses
// have listed etcd and become ready, by upstream's metric.
func cacheInitializations(t *testing.T) float64 {
	t.Helper()
	n, err := testutil.GetCounterMetricValue(cachermetrics.WatchCacheInitializations.WithLabelValues(networking.GroupName, "ipaddresses"))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitInitializations waits until the watch caches of IPAddresses have initialized n times.
func waitInitializations(ctx context.Context, t *testing.T, n float64) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return cacheInitializations(t) >= n, nil
	}); err != nil {
		t.Fatalf("the watch cache initialized %v times, not %v: %v", cacheInitializations(t), n, err)
	}
}

// TestIndexAcrossCacheReinitialization binds the Index to a store whose watch
// cache is upstream's, then makes that cache reinitialize as it does when its
// own watch of etcd breaks and etcd was compacted meanwhile: the cache's watch
// closes, another apiserver (a store on the same etcd, without a cache)
// deletes, creates and recreates IPAddresses, etcd is compacted, and the
// cache's next watch of etcd is too old, so it relists, ends its watchers and
// starts its history anew. The Index, whose watch that ends and whose
// resource version the new cache no longer holds, must relist too and hold
// exactly what etcd holds.
func TestIndexAcrossCacheReinitialization(t *testing.T) {
	cachermetrics.Register()
	ctx, cancel := requestContext()
	defer cancel()
	st := storagetest.New(t)
	// The cache counts its initialization just after it is ready.
	initialized := cacheInitializations(t) + 1
	cached, underCache := newCachedStore(t, st)
	// The other apiserver's store writes, and waitSame reads etcd through it, not through the cache.
	other, _ := newStore(t, st, generic.UndecoratedStorage)
	x, seen := startIndex(ctx, t, cached, other)
	waitInitializations(ctx, t, initialized)

	resume := underCache.pause()
	t.Cleanup(resume)
	rewrite(ctx, t, other)
	resume()

	waitInitializations(ctx, t, initialized+1)
	waitSame(ctx, t, "the index after the cache reinitialized", other, x)
	// The Index relisted: 10.0.0.1 is gone as a tombstone, 10.0.0.2 is replaced, not deleted.
	seen.wait(ctx, t, 0, 1)
	writeAfter(ctx, t, other, x)
}
