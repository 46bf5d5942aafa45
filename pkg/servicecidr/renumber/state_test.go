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

package renumber

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// recordOf is a State with n Service entries.
func recordOf(n int) *State {
	st := &State{From: []string{"10.96.0.0/16"}, To: []string{"10.200.0.0/16"}, Phase: PhaseMoving, ClusterDomain: "cluster.local"}
	for i := range n {
		st.Services = append(st.Services, ServiceRecord{Namespace: "apps", Name: fmt.Sprintf("s%03d", i),
			OldClusterIPs: []string{fmt.Sprintf("10.96.0.%d", i+1)}, NewClusterIPs: []string{fmt.Sprintf("10.200.0.%d", i+1)},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Selector: map[string]string{"app": fmt.Sprintf("s%03d", i)}}})
	}
	return st
}

// chunkNames are the record's chunk ConfigMaps in the cluster, sorted.
func chunkNames(t *testing.T, client *fake.Clientset) []string {
	t.Helper()
	list, err := client.CoreV1().ConfigMaps(StateNamespace).List(context.Background(), metav1.ListOptions{LabelSelector: ChunkLabel + "=" + StateName})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, cm := range list.Items {
		if cm.Immutable == nil || !*cm.Immutable {
			t.Errorf("chunk %s is not immutable", cm.Name)
		}
		names = append(names, cm.Name)
	}
	slices.Sort(names)
	return names
}

// savedRecord is a fake cluster with objects and the record of n Services,
// the store that saved it, and that record.
func savedRecord(t *testing.T, n int, objects ...runtime.Object) (*fake.Clientset, *store, *State) {
	t.Helper()
	client := fake.NewClientset(objects...)
	s := &store{client: client}
	st := recordOf(n)
	if err := s.save(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	return client, s, st
}

// loaded is the record as a new run reads it.
func loaded(t *testing.T, client *fake.Clientset) *State {
	t.Helper()
	st, err := Recorded(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// writes counts the creates, updates and deletes of ConfigMaps since mark.
func writes(client *fake.Clientset, mark int) (creates, updates, deletes int) {
	for _, a := range client.Actions()[mark:] {
		switch a.GetVerb() {
		case "create":
			creates++
		case "update":
			updates++
		case "delete":
			deletes++
		}
	}
	return creates, updates, deletes
}

// TestRecordChunks checks the record of many Services: it is read back as it
// was written, a save writes only the chunk that changed and deletes the one it
// replaced, and the header holds no entries.
func TestRecordChunks(t *testing.T) {
	ctx := context.Background()
	client, s, st := savedRecord(t, 96)
	first := chunkNames(t, client)
	if len(first) != 3 {
		t.Fatalf("96 entries in %d chunks %v, want 3 of %d", len(first), first, chunkSize)
	}
	if got := loaded(t, client); !reflect.DeepEqual(got, st) {
		t.Fatalf("read back:\n%+v\nwant\n%+v", got, st)
	}
	header, err := client.CoreV1().ConfigMaps(StateNamespace).Get(ctx, StateName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := header.Data[stateKey]; ok || strings.Contains(header.Data[recordKey], `"services"`) {
		t.Errorf("the header holds the entries, or a key an older plugin would read: %v", header.Data)
	}

	st.Services[40].Holder = "s040-renumber-holder"
	mark := len(client.Actions())
	if err := s.save(ctx, st); err != nil {
		t.Fatal(err)
	}
	if c, u, d := writes(client, mark); c != 1 || u != 1 || d != 1 {
		t.Errorf("a save changing one entry made %d creates, %d updates, %d deletes; want 1 chunk, 1 header, 1 replaced chunk", c, u, d)
	}
	second := chunkNames(t, client)
	if gone := slices.DeleteFunc(slices.Clone(first), func(n string) bool { return slices.Contains(second, n) }); len(second) != 3 || len(gone) != 1 {
		t.Errorf("chunks %v after %v: want one replaced", second, first)
	}
	st.Services = append(st.Services, recordOf(97).Services[96])
	mark = len(client.Actions())
	if err := s.save(ctx, st); err != nil {
		t.Fatal(err)
	}
	if c, u, d := writes(client, mark); c != 1 || u != 1 || d != 0 {
		t.Errorf("a save adding an entry made %d creates, %d updates, %d deletes; want 1 new chunk, 1 header", c, u, d)
	}
	if got := loaded(t, client); !reflect.DeepEqual(got, st) || len(chunkNames(t, client)) != 4 {
		t.Errorf("after an entry was added: %d entries in %d chunks, want 97 in 4", len(got.Services), len(chunkNames(t, client)))
	}
}

// TestRecordSaveLost checks a save whose header write fails (another run won)
// leaves the record as it was and deletes the chunk it wrote.
func TestRecordSaveLost(t *testing.T) {
	ctx := context.Background()
	client, s, _ := savedRecord(t, 40)
	before := chunkNames(t, client)
	client.PrependReactor("update", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, StateName, fmt.Errorf("the object has been modified"))
	})
	changed := recordOf(40)
	changed.Services[35].Bridge = "s035-renumber-bridge"
	if err := s.save(ctx, changed); err == nil || !apierrors.IsConflict(err) {
		t.Fatalf("save against a header another run wrote: %v, want a conflict", err)
	}
	if got := loaded(t, client); !reflect.DeepEqual(got, recordOf(40)) {
		t.Errorf("the record changed by a lost save: entry 35 %+v", got.Services[35])
	}
	if after := chunkNames(t, client); !slices.Equal(after, before) {
		t.Errorf("chunks %v after a lost save, want %v: the one it wrote deleted", after, before)
	}
}

// TestRecordFromAnOlderPlugin checks a header that holds its entries itself,
// as an older plugin wrote it, reads as it was, and the next save moves them.
func TestRecordFromAnOlderPlugin(t *testing.T) {
	ctx := context.Background()
	st := recordOf(3)
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: StateNamespace, Name: StateName}, Data: map[string]string{stateKey: string(data)}})
	s := &store{client: client}
	got, err := s.load(ctx)
	if err != nil || !reflect.DeepEqual(got, st) {
		t.Fatalf("an older plugin's record read as %+v, %v", got, err)
	}
	if err := s.save(ctx, got); err != nil {
		t.Fatal(err)
	}
	if names := chunkNames(t, client); len(names) != 1 || !reflect.DeepEqual(loaded(t, client), st) {
		t.Errorf("after a save: chunks %v, record %+v", names, loaded(t, client))
	}
}

// TestRecordRemove checks remove deletes the header and every chunk, one no
// header lists (a run killed before its header) too, and nothing else.
func TestRecordRemove(t *testing.T) {
	ctx := context.Background()
	orphan := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: StateNamespace, Name: StateName + "-orphan1", Labels: map[string]string{ChunkLabel: StateName}}}
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: StateNamespace, Name: "kubeadm-config"}}
	client, s, _ := savedRecord(t, 70, orphan, other)
	if err := s.remove(ctx); err != nil {
		t.Fatal(err)
	}
	list, err := client.CoreV1().ConfigMaps(StateNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "kubeadm-config" {
		var names []string
		for _, cm := range list.Items {
			names = append(names, cm.Name)
		}
		t.Errorf("ConfigMaps left %v, want only kubeadm-config", names)
	}
}

// TestRecordSweep checks the chunk a run killed before its header left is
// deleted by the next run's first save, and a chunk written for a later
// generation, which another run may still commit, is kept.
func TestRecordSweep(t *testing.T) {
	ctx := context.Background()
	client, _, _ := savedRecord(t, 10)
	// A run killed after writing its chunk: its header write and the chunk's delete never happen.
	killed := &store{client: client}
	if _, err := killed.load(ctx); err != nil {
		t.Fatal(err)
	}
	client.PrependReactor("update", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, fmt.Errorf("killed")
	})
	client.PrependReactor("delete", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, fmt.Errorf("killed")
	})
	if err := killed.save(ctx, recordOf(11)); err == nil {
		t.Fatal("the killed run's save succeeded")
	}
	client.ReactionChain = client.ReactionChain[2:]
	orphans := chunkNames(t, client)
	if len(orphans) != 2 {
		t.Fatalf("chunks %v, want the record's and the killed run's", orphans)
	}
	// A chunk another run wrote for the generation after the next one.
	later := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: StateNamespace, Name: StateName + "-later000",
		Labels: map[string]string{ChunkLabel: StateName, chunkGenerationLabel: "3"}}, Immutable: ptr.To(true)}
	if _, err := client.CoreV1().ConfigMaps(StateNamespace).Create(ctx, later, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	next := &store{client: client}
	st, err := next.load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.Phase = PhaseCutOver
	if err := next.save(ctx, st); err != nil { // generation 2: the record's chunk is unchanged
		t.Fatal(err)
	}
	left := chunkNames(t, client)
	want := []string{later.Name}
	for _, name := range orphans {
		if name == next.chunks[0].name {
			want = append(want, name)
		}
	}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("chunks after the next run's first save %v, want %v: the killed run's deleted, the later one kept", left, want)
	}
}
