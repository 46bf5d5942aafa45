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

package ipaddressindex

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	networkingv1listers "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/apis/networking"
)

// reflectorStore is the Index as the Reflector's store.
type reflectorStore struct{ x *Index }

func (s reflectorStore) Add(obj any) error                  { return s.x.set(obj) }
func (s reflectorStore) Update(obj any) error               { return s.x.set(obj) }
func (s reflectorStore) Delete(obj any) error               { return s.x.remove(obj) }
func (s reflectorStore) Replace(list []any, _ string) error { return s.x.replace(list) }
func (s reflectorStore) Resync() error                      { return nil }

// listerWatcher is the storage's lister and watcher once bound, else the
// client's, and the type of object each hands out.
func (x *Index) listerWatcher() (cache.ListerWatcher, runtime.Object) {
	if store := x.store.Load(); store != nil {
		return storageListerWatcher{store}, &networking.IPAddress{}
	}
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return x.client.NetworkingV1().IPAddresses().List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return x.client.NetworkingV1().IPAddresses().Watch(ctx, opts)
		},
	}, x.client), &networkingv1.IPAddress{}
}

// storageListerWatcher lists and watches the IPAddress storage in process:
// the registry store, through its watch cache when it has one, with the
// store's error conversions, so an expired resource version reads as the API
// answers it and the Reflector relists.
type storageListerWatcher struct{ store *genericregistry.Store }

var (
	_ cache.ListerWatcher            = storageListerWatcher{}
	_ cache.ListerWatcherWithContext = storageListerWatcher{}
)

func (s storageListerWatcher) List(opts metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), opts)
}

func (s storageListerWatcher) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), opts)
}

func (s storageListerWatcher) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return s.store.List(ctx, internalOptions(opts))
}

func (s storageListerWatcher) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := s.store.Watch(ctx, internalOptions(opts))
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, unwrapCached), nil
}

// unwrapCached is e with its object out of the wrapper the watch cache puts
// around the objects it sends several watchers (to encode each once), which
// the Reflector would refuse as not an IPAddress.
func unwrapCached(e watch.Event) (watch.Event, bool) {
	if c, ok := e.Object.(runtime.CacheableObject); ok {
		e.Object = c.GetObject()
	}
	return e, true
}

// IsWatchListSemanticsUnSupported is true: the Reflector lists, then watches
// from the list's resource version, whether or not the storage has a watch cache.
func (s storageListerWatcher) IsWatchListSemanticsUnSupported() bool { return true }

// internalOptions are the Reflector's options as the registry store takes
// them; it never asks for selectors.
func internalOptions(opts metav1.ListOptions) *metainternalversion.ListOptions {
	return &metainternalversion.ListOptions{
		ResourceVersion:      opts.ResourceVersion,
		ResourceVersionMatch: opts.ResourceVersionMatch,
		AllowWatchBookmarks:  opts.AllowWatchBookmarks,
		TimeoutSeconds:       opts.TimeoutSeconds,
		Limit:                opts.Limit,
		Continue:             opts.Continue,
		SendInitialEvents:    opts.SendInitialEvents,
	}
}

// object is the IPAddress name as the Index knows it: metadata (name, UID,
// resourceVersion, creationTimestamp, the managed-by and ip-family labels)
// and spec.parentRef, nothing else.
func (e entry) object(name string) *networkingv1.IPAddress {
	obj := &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			UID:               e.uid,
			ResourceVersion:   e.resourceVersion,
			CreationTimestamp: metav1.Unix(e.created, 0),
		},
	}
	if e.managedBy != "" || e.family != "" {
		obj.Labels = e.labels()
	}
	if e.parent.resource != "" || e.parent.name != "" {
		obj.Spec.ParentRef = &networkingv1.ParentReference{
			Group:     e.parent.group,
			Resource:  e.parent.resource,
			Namespace: e.parent.namespace,
			Name:      e.parent.name,
		}
	}
	return obj
}

// labels are the labels the Index keeps of the object.
func (e entry) labels() labels.Set {
	set := labels.Set{}
	if e.managedBy != "" {
		set[networkingv1.LabelManagedBy] = e.managedBy
	}
	if e.family != "" {
		set[networkingv1.LabelIPAddressFamily] = e.family
	}
	return set
}

// Lister reads the Index as a lister reads an informer's store; the objects
// carry only what the Index keeps (see entry.object).
func (x *Index) Lister() networkingv1listers.IPAddressLister { return lister{x} }

type lister struct{ x *Index }

// ipAddressResource is what a lister's NotFound names, as client-go's.
var ipAddressResource = networkingv1.Resource("ipaddress")

func (l lister) List(selector labels.Selector) ([]*networkingv1.IPAddress, error) {
	l.x.mu.RLock()
	defer l.x.mu.RUnlock()
	var out []*networkingv1.IPAddress
	for name, e := range l.x.entries {
		if selector.Empty() || selector.Matches(e.labels()) {
			out = append(out, e.object(name))
		}
	}
	return out, nil
}

func (l lister) Get(name string) (*networkingv1.IPAddress, error) {
	l.x.mu.RLock()
	e, ok := l.x.entries[name]
	l.x.mu.RUnlock()
	if !ok {
		return nil, apierrors.NewNotFound(ipAddressResource, name)
	}
	return e.object(name), nil
}

// ReflectorStore is the store the Index's Reflector fills. Tests fill it by
// hand to play an index that lags behind the API.
func (x *Index) ReflectorStore() cache.ReflectorStore { return reflectorStore{x} }
