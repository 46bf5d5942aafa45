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
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/apis/networking"
)

// Index is the compact view of the IPAddresses; see the package documentation.
type Index struct {
	client    kubernetes.Interface
	store     atomic.Pointer[genericregistry.Store]
	startOnce sync.Once

	// dispatch serializes the changes and the event handlers that see them,
	// so a handler added late gets the entries and then every change, once.
	dispatch sync.Mutex
	handlers []*registration

	mu      sync.RWMutex
	entries map[string]entry

	synced   atomic.Bool
	syncedCh chan struct{}
}

// entry is what the Index keeps of one IPAddress.
type entry struct {
	uid             types.UID
	resourceVersion string
	// created is the creation time in Unix seconds, the precision the API keeps.
	created int64
	parent  parentRef
	// managedBy and family are the managed-by and ip-family labels, "" when unset.
	managedBy, family string
}

// parentRef is an IPAddress's spec.parentRef; resource is "" when there is none.
type parentRef struct {
	group, resource, namespace, name string
}

// New returns an Index that lists and watches IPAddresses through client
// until Bind gives it the storage. It does nothing before Start.
func New(client kubernetes.Interface) *Index {
	return &Index{client: client, entries: map[string]entry{}, syncedCh: make(chan struct{})}
}

// Bind makes the Index list and watch store, the apiserver's IPAddress
// storage, once it starts; it is called when the networking group's storage
// is built, before the apiserver starts.
func (x *Index) Bind(store *genericregistry.Store) error {
	if store == nil {
		return fmt.Errorf("binding the IPAddress index: no storage")
	}
	x.store.Store(store)
	return nil
}

// Start runs the Index until ctx ends; only the first call starts it.
func (x *Index) Start(ctx context.Context) {
	x.startOnce.Do(func() {
		lw, expected := x.listerWatcher()
		r := cache.NewReflectorWithOptions(lw, expected, reflectorStore{x}, cache.ReflectorOptions{
			Name:            "ipaddressindex",
			TypeDescription: "IPAddress",
		})
		go r.RunWithContext(ctx)
	})
}

// HasSynced reports whether the Index holds a complete list.
func (x *Index) HasSynced() bool { return x.synced.Load() }

// Len is the number of IPAddresses the Index holds.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.entries)
}

// AddEventHandler calls h for every change from now on, after an add, with
// isInInitialList true, for every IPAddress the Index holds already, as a
// shared informer does for a handler added late. Handlers run on the Index's
// goroutine, one change at a time: they must not block, nor add or remove
// handlers.
func (x *Index) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	x.dispatch.Lock()
	defer x.dispatch.Unlock()
	reg := &registration{index: x, handler: h}
	x.handlers = append(x.handlers, reg)
	x.mu.RLock()
	objs := make([]*networkingv1.IPAddress, 0, len(x.entries))
	for name, e := range x.entries {
		objs = append(objs, e.object(name))
	}
	x.mu.RUnlock()
	for _, obj := range objs {
		h.OnAdd(obj, true)
	}
	return reg, nil
}

// RemoveEventHandler stops calling the handler of reg.
func (x *Index) RemoveEventHandler(reg cache.ResourceEventHandlerRegistration) error {
	x.dispatch.Lock()
	defer x.dispatch.Unlock()
	i := slices.IndexFunc(x.handlers, func(r *registration) bool { return r == reg })
	if i < 0 {
		return fmt.Errorf("IPAddress index: unknown event handler registration")
	}
	x.handlers = slices.Delete(x.handlers, i, i+1)
	return nil
}

// registration is one handler of an Index.
type registration struct {
	index   *Index
	handler cache.ResourceEventHandler
}

// HasSynced is the Index's: a handler sees the initial list before the Index reports synced.
func (r *registration) HasSynced() bool { return r.index.HasSynced() }

// HasSyncedChecker is closed once the Index has synced.
func (r *registration) HasSyncedChecker() cache.DoneChecker { return syncedChecker{r.index} }

type syncedChecker struct{ index *Index }

func (c syncedChecker) Name() string          { return "ipaddressindex" }
func (c syncedChecker) Done() <-chan struct{} { return c.index.syncedCh }

// set records obj and tells the handlers.
func (x *Index) set(obj any) error {
	name, e, err := compact(obj)
	if err != nil {
		return err
	}
	x.dispatch.Lock()
	defer x.dispatch.Unlock()
	x.mu.Lock()
	old, existed := x.entries[name]
	x.entries[name] = e
	x.mu.Unlock()
	if existed && old == e {
		return nil
	}
	newObj := e.object(name)
	for _, r := range x.handlers {
		if existed {
			r.handler.OnUpdate(old.object(name), newObj)
		} else {
			r.handler.OnAdd(newObj, false)
		}
	}
	return nil
}

// remove forgets obj and tells the handlers.
func (x *Index) remove(obj any) error {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	name, err := nameOf(obj)
	if err != nil {
		return err
	}
	x.dispatch.Lock()
	defer x.dispatch.Unlock()
	x.mu.Lock()
	old, existed := x.entries[name]
	delete(x.entries, name)
	x.mu.Unlock()
	if !existed {
		return nil
	}
	oldObj := old.object(name)
	for _, r := range x.handlers {
		r.handler.OnDelete(oldObj)
	}
	return nil
}

// replace makes list the Index's content, telling the handlers what changed:
// adds (initial ones on the first list), updates of what changed, and deletes,
// as tombstones, of what the list no longer has.
func (x *Index) replace(list []any) error {
	entries := make(map[string]entry, len(list))
	for _, obj := range list {
		name, e, err := compact(obj)
		if err != nil {
			return err
		}
		entries[name] = e
	}
	x.dispatch.Lock()
	defer x.dispatch.Unlock()
	x.mu.Lock()
	old := x.entries
	x.entries = entries
	x.mu.Unlock()
	initial := !x.synced.Load()
	for name, e := range entries {
		prev, existed := old[name]
		switch {
		case !existed:
			obj := e.object(name)
			for _, r := range x.handlers {
				r.handler.OnAdd(obj, initial)
			}
		case prev != e:
			oldObj, newObj := prev.object(name), e.object(name)
			for _, r := range x.handlers {
				r.handler.OnUpdate(oldObj, newObj)
			}
		}
	}
	for name, prev := range old {
		if _, ok := entries[name]; ok {
			continue
		}
		tomb := cache.DeletedFinalStateUnknown{Key: name, Obj: prev.object(name)}
		for _, r := range x.handlers {
			r.handler.OnDelete(tomb)
		}
	}
	if initial {
		x.synced.Store(true)
		close(x.syncedCh)
	}
	return nil
}

// compact is obj's name and entry; obj is an IPAddress of the storage's
// internal type or of networking.k8s.io/v1.
func compact(obj any) (string, entry, error) {
	var (
		m *metav1.ObjectMeta
		e entry
	)
	switch o := obj.(type) {
	case *networking.IPAddress:
		m = &o.ObjectMeta
		if p := o.Spec.ParentRef; p != nil {
			e.parent = newParentRef(p.Group, p.Resource, p.Namespace, p.Name)
		}
	case *networkingv1.IPAddress:
		m = &o.ObjectMeta
		if p := o.Spec.ParentRef; p != nil {
			e.parent = newParentRef(p.Group, p.Resource, p.Namespace, p.Name)
		}
	default:
		return "", entry{}, notIPAddress(obj)
	}
	e.uid = m.UID
	e.resourceVersion = m.ResourceVersion
	e.created = m.CreationTimestamp.Unix()
	e.managedBy = intern(m.Labels[networkingv1.LabelManagedBy])
	e.family = intern(m.Labels[networkingv1.LabelIPAddressFamily])
	return m.Name, e, nil
}

// newParentRef is a parentRef, its group and resource interned.
func newParentRef(group, resource, namespace, name string) parentRef {
	return parentRef{intern(group), intern(resource), namespace, name}
}

// nameOf is obj's name; obj is an IPAddress as compact takes it.
func nameOf(obj any) (string, error) {
	switch o := obj.(type) {
	case *networking.IPAddress:
		return o.Name, nil
	case *networkingv1.IPAddress:
		return o.Name, nil
	}
	return "", notIPAddress(obj)
}

func notIPAddress(obj any) error {
	return fmt.Errorf("IPAddress index: %T is not an IPAddress", obj)
}

// intern is s, as the one copy the Index keeps when it is a value nearly
// every IPAddress has.
func intern(s string) string {
	switch s {
	case "services":
		return "services"
	case "IPv4":
		return "IPv4"
	case "IPv6":
		return "IPv6"
	case "ipallocator.k8s.io":
		return "ipallocator.k8s.io"
	}
	return s
}
