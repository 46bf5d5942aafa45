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
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/apis/networking"
)

// ipAddress is an IPAddress fixture of Service default/svc, labeled as the allocators label it.
func ipAddress(name, svc string) *networkingv1.IPAddress {
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			UID:               types.UID("uid-" + name + "-" + svc),
			ResourceVersion:   "7",
			CreationTimestamp: metav1.Unix(1700000000, 0),
			Labels: map[string]string{
				networkingv1.LabelManagedBy:       "ipallocator.k8s.io",
				networkingv1.LabelIPAddressFamily: "IPv4",
				"other":                           "dropped",
			},
			Annotations: map[string]string{"dropped": "too"},
		},
		Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: svc}},
	}
}

// recorder is an event handler that remembers what it saw, as "op name parent".
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(op string, obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		op += "(tombstone)"
		obj = tomb.Obj
	}
	a := obj.(*networkingv1.IPAddress)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf("%s %s %s", op, a.Name, a.Spec.ParentRef.Name))
}

func (r *recorder) OnAdd(obj any, initial bool) {
	if initial {
		r.add("initial", obj)
		return
	}
	r.add("add", obj)
}
func (r *recorder) OnUpdate(_, obj any) { r.add("update", obj) }
func (r *recorder) OnDelete(obj any)    { r.add("delete", obj) }

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// waitFor polls until cond holds, failing the test after a while.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	}); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// names lists the index's content as "name parent".
func names(t *testing.T, x *Index) []string {
	t.Helper()
	list, err := x.Lister().List(labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range list {
		out = append(out, a.Name+" "+a.Spec.ParentRef.Name)
	}
	slices.Sort(out)
	return out
}

func TestIndexKeepsOnlyItsFields(t *testing.T) {
	for _, obj := range []runtime.Object{ipAddress("10.0.0.1", "a"), internal(t, ipAddress("10.0.0.1", "a"))} {
		t.Run(fmt.Sprintf("%T", obj), func(t *testing.T) {
			x := New(fake.NewClientset())
			if err := x.ReflectorStore().Replace([]any{obj}, "7"); err != nil {
				t.Fatal(err)
			}
			got, err := x.Lister().Get("10.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			want := ipAddress("10.0.0.1", "a")
			want.Annotations = nil
			delete(want.Labels, "other")
			if got.UID != want.UID || got.ResourceVersion != want.ResourceVersion ||
				!got.CreationTimestamp.Equal(&want.CreationTimestamp) || !maps.Equal(got.Labels, want.Labels) ||
				*got.Spec.ParentRef != *want.Spec.ParentRef || got.Annotations != nil {
				t.Errorf("Get = %+v; want %+v", got, want)
			}
			if _, err := x.Lister().Get("10.0.0.2"); !apierrors.IsNotFound(err) {
				t.Errorf("Get of a missing name: %v, want NotFound", err)
			}
			managed, _ := x.Lister().List(labels.SelectorFromSet(labels.Set{networkingv1.LabelManagedBy: "ipallocator.k8s.io"}))
			other, _ := x.Lister().List(labels.SelectorFromSet(labels.Set{networkingv1.LabelManagedBy: "someone-else"}))
			if len(managed) != 1 || len(other) != 0 {
				t.Errorf("List by managed-by: %d allocator's, %d someone else's; want 1 and 0", len(managed), len(other))
			}
		})
	}
}

// internal is obj as the storage holds it.
func internal(tb testing.TB, obj *networkingv1.IPAddress) *networking.IPAddress {
	tb.Helper()
	out := &networking.IPAddress{ObjectMeta: *obj.ObjectMeta.DeepCopy()}
	if p := obj.Spec.ParentRef; p != nil {
		out.Spec.ParentRef = &networking.ParentReference{Group: p.Group, Resource: p.Resource, Namespace: p.Namespace, Name: p.Name}
	}
	return out
}

// TestIndexRelistTellsHandlers replaces the content as a relist does: the
// handlers see adds, updates of what changed only, and tombstones.
func TestIndexRelistTellsHandlers(t *testing.T) {
	x := New(fake.NewClientset())
	early := &recorder{}
	if _, err := x.AddEventHandler(early); err != nil {
		t.Fatal(err)
	}
	store := x.ReflectorStore()
	if err := store.Replace([]any{ipAddress("10.0.0.1", "a"), ipAddress("10.0.0.2", "b")}, "7"); err != nil {
		t.Fatal(err)
	}
	if !x.HasSynced() {
		t.Fatal("not synced after the first list")
	}
	changed := ipAddress("10.0.0.2", "b")
	changed.ResourceVersion = "9"
	if err := store.Replace([]any{changed, ipAddress("10.0.0.3", "c")}, "10"); err != nil {
		t.Fatal(err)
	}
	if err := store.Add(ipAddress("10.0.0.3", "c")); err != nil { // unchanged: no event
		t.Fatal(err)
	}
	if err := store.Delete(ipAddress("10.0.0.4", "d")); err != nil { // unknown: no event
		t.Fatal(err)
	}
	got := early.seen()
	slices.Sort(got[:2])
	want := []string{"initial 10.0.0.1 a", "initial 10.0.0.2 b", "add 10.0.0.3 c", "update 10.0.0.2 b", "delete(tombstone) 10.0.0.1 a"}
	slices.Sort(got[2:4])
	slices.Sort(want[2:4])
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}

	late := &recorder{}
	reg, err := x.AddEventHandler(late)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(slices.Values(late.seen())); !slices.Equal(got, []string{"initial 10.0.0.2 b", "initial 10.0.0.3 c"}) {
		t.Errorf("a late handler saw %q; want the two IPAddresses as initial adds", got)
	}
	if !reg.HasSynced() {
		t.Error("a late handler's registration is not synced")
	}
	if err := x.RemoveEventHandler(reg); err != nil {
		t.Fatal(err)
	}
	if err := store.Delete(changed); err != nil {
		t.Fatal(err)
	}
	if n := len(late.seen()); n != 2 {
		t.Errorf("a removed handler saw %d events, want 2", n)
	}
	if got := early.seen(); got[len(got)-1] != "delete 10.0.0.2 b" {
		t.Errorf("last event %q; want the delete of 10.0.0.2", got[len(got)-1])
	}
}

// TestIndexFollowsTheAPI runs the Index's Reflector on a fake API: the first
// list, then creates, updates and deletes from the watch.
func TestIndexFollowsTheAPI(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(ipAddress("10.0.0.1", "a"))
	// The fake API sends a watch only what happens once it is open.
	watching := make(chan struct{}, 10)
	client.PrependWatchReactor("ipaddresses", func(action k8stesting.Action) (bool, watch.Interface, error) {
		w, err := client.Tracker().Watch(action.GetResource(), action.GetNamespace())
		watching <- struct{}{}
		return true, w, err
	})
	x := New(client)
	r := &recorder{}
	reg, err := x.AddEventHandler(r)
	if err != nil {
		t.Fatal(err)
	}
	x.Start(ctx)
	x.Start(ctx) // only the first call starts it
	waitFor(t, "the first list", reg.HasSynced)
	<-watching
	select {
	case <-reg.HasSyncedChecker().Done():
	default:
		t.Error("the synced checker is not done once synced")
	}

	ips := client.NetworkingV1().IPAddresses()
	created := ipAddress("10.0.0.2", "b")
	created.ResourceVersion = ""
	if _, err := ips.Create(ctx, created, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	moved := ipAddress("10.0.0.1", "a")
	moved.Labels[networkingv1.LabelIPAddressFamily] = "IPv6"
	if _, err := ips.Update(ctx, moved, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ips.Delete(ctx, "10.0.0.2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"initial 10.0.0.1 a", "add 10.0.0.2 b", "update 10.0.0.1 a", "delete 10.0.0.2 b"}
	waitFor(t, "the watch events", func() bool { return len(r.seen()) >= len(want) })
	if got := r.seen(); !slices.Equal(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
	if got := names(t, x); !slices.Equal(got, []string{"10.0.0.1 a"}) {
		t.Errorf("index holds %q", got)
	}
}

// TestIndexRelistsOnExpiredWatch ends the Index's first watch with the error
// the storage sends when the resource version is too old (an etcd compaction,
// a watch cache that moved on): the Reflector relists, and the Index comes
// out right, with what changed while it was not watching told to the handlers.
func TestIndexRelistsOnExpiredWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(ipAddress("10.0.0.1", "a"), ipAddress("10.0.0.2", "b"))
	first := watch.NewFake()
	var watches, lists atomic.Int32
	client.PrependWatchReactor("ipaddresses", func(k8stesting.Action) (bool, watch.Interface, error) {
		if watches.Add(1) == 1 {
			return true, first, nil
		}
		return false, nil, nil
	})
	client.PrependReactor("list", "ipaddresses", func(k8stesting.Action) (bool, runtime.Object, error) {
		lists.Add(1)
		return false, nil, nil
	})
	x := New(client)
	r := &recorder{}
	if _, err := x.AddEventHandler(r); err != nil {
		t.Fatal(err)
	}
	x.Start(ctx)
	waitFor(t, "the first watch", func() bool { return watches.Load() == 1 && x.HasSynced() })

	// Changes the first watch never delivers.
	tracker := client.Tracker()
	if err := tracker.Delete(networkingv1.SchemeGroupVersion.WithResource("ipaddresses"), "", "10.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if err := tracker.Add(ipAddress("10.0.0.3", "c")); err != nil {
		t.Fatal(err)
	}
	first.Error(&apierrors.NewResourceExpired("too old resource version: 7 (9)").ErrStatus)

	waitFor(t, "a relist", func() bool { return lists.Load() >= 2 && watches.Load() >= 2 })
	waitFor(t, "the relisted content", func() bool { return slices.Equal(names(t, x), []string{"10.0.0.2 b", "10.0.0.3 c"}) })
	got := slices.Sorted(slices.Values(r.seen()[2:]))
	if want := []string{"add 10.0.0.3 c", "delete(tombstone) 10.0.0.1 a"}; !slices.Equal(got, want) {
		t.Errorf("events after the relist: %q, want %q", got, want)
	}
}

// TestIndexBind refuses no storage.
func TestIndexBind(t *testing.T) {
	if err := New(fake.NewClientset()).Bind(nil); err == nil {
		t.Error("Bind(nil) succeeded")
	}
}

// TestIndexDeleteTakesBothTypesAndTombstones deletes IPAddresses of either
// type, bare or in a tombstone, and refuses what is not an IPAddress.
func TestIndexDeleteTakesBothTypesAndTombstones(t *testing.T) {
	x := New(fake.NewClientset())
	store := x.ReflectorStore()
	a, b, c := ipAddress("10.0.0.1", "a"), ipAddress("10.0.0.2", "b"), ipAddress("10.0.0.3", "c")
	if err := store.Replace([]any{a, b, c}, "7"); err != nil {
		t.Fatal(err)
	}
	for _, obj := range []any{internal(t, a), b, cache.DeletedFinalStateUnknown{Key: c.Name, Obj: internal(t, c)}} {
		if err := store.Delete(obj); err != nil {
			t.Fatalf("deleting %T: %v", obj, err)
		}
	}
	if n := x.Len(); n != 0 {
		t.Errorf("the index holds %d IPAddresses after deleting all, want 0", n)
	}
	for _, obj := range []any{&networkingv1.ServiceCIDR{}, cache.DeletedFinalStateUnknown{Key: "x", Obj: &networkingv1.ServiceCIDR{}}} {
		if err := store.Delete(obj); err == nil {
			t.Errorf("deleting a %T succeeded", obj)
		}
		if err := store.Add(obj); err == nil {
			t.Errorf("adding a %T succeeded", obj)
		}
	}
}
