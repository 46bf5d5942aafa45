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

package controlplane

import (
	"context"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/netfork/netfork/test/integration/framework"
)

// resumeLabel marks the Services of TestIPAddressWatchResumes, so their watch sees no other.
const resumeLabel = "test.netfork.io/resume"

// watchedEvent is what a client remembers of a watch event to resume after it.
type watchedEvent struct {
	typ  watch.EventType
	name string
	rv   string
}

func (e watchedEvent) String() string { return fmt.Sprintf("%s %s at %s", e.typ, e.name, e.rv) }

// TestIPAddressWatchResumes creates and deletes single-stack and dual-stack
// Services and watches IPAddresses and Services throughout. Along each stream
// the resourceVersions strictly increase, and a watch started at the
// resourceVersion of any event delivers the next event first, the same
// object and change at the same resourceVersion: a client that resumes from
// the last resourceVersion it saw misses nothing, which needs each IPAddress
// write at a revision of its own.
func TestIPAddressWatchResumes(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, framework.WithFlags("--service-cluster-ip-range="+dualStackRanges))
	defer s.Stop()
	waitKubernetesService(ctx, t, s.Client)
	addresses := s.Client.NetworkingV1().IPAddresses()
	services := s.Client.CoreV1().Services(metav1.NamespaceDefault)
	ours := metav1.ListOptions{LabelSelector: resumeLabel}

	ipList, err := addresses.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ipWatch, err := addresses.Watch(ctx, metav1.ListOptions{ResourceVersion: ipList.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer ipWatch.Stop()
	svcList, err := services.List(ctx, ours)
	if err != nil {
		t.Fatal(err)
	}
	svcWatch, err := services.Watch(ctx, metav1.ListOptions{LabelSelector: resumeLabel, ResourceVersion: svcList.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer svcWatch.Stop()

	var created []*corev1.Service
	for i := range 22 {
		svc := clusterIPService(fmt.Sprintf("resume-%d", i))
		if i >= 20 {
			withFamilies(svc, corev1.IPFamilyPolicyRequireDualStack)
		}
		svc.Labels = map[string]string{resumeLabel: "true"}
		created = append(created, createService(ctx, t, s.Client, svc))
	}
	var clusterIPs []string
	for _, svc := range created {
		clusterIPs = append(clusterIPs, svc.Spec.ClusterIPs...)
		if err := services.Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("deleting Service %s: %v", svc.Name, err)
		}
	}

	ipEvents := collectEvents(t, ipWatch, "IPAddresses", 2*len(clusterIPs))
	checkAddedThenDeleted(t, "IPAddress", ipEvents, clusterIPs)
	checkResumable(ctx, t, "IPAddress", ipEvents, func(ctx context.Context, rv string) (watch.Interface, error) {
		return addresses.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	})

	var names []string
	for _, svc := range created {
		names = append(names, svc.Name)
	}
	svcEvents := collectEvents(t, svcWatch, "Services", 2*len(created))
	checkAddedThenDeleted(t, "Service", svcEvents, names)
	checkResumable(ctx, t, "Service", svcEvents, func(ctx context.Context, rv string) (watch.Interface, error) {
		return services.Watch(ctx, metav1.ListOptions{LabelSelector: resumeLabel, ResourceVersion: rv})
	})
}

// collectEvents reads n events from w and checks their resourceVersions strictly increase.
func collectEvents(t *testing.T, w watch.Interface, what string, n int) []watchedEvent {
	t.Helper()
	events := make([]watchedEvent, 0, n)
	for len(events) < n {
		ev := nextWatchEvent(t, w, what)
		e := describeEvent(t, ev)
		if len(events) > 0 {
			if prev := events[len(events)-1]; revision(t, e.rv) <= revision(t, prev.rv) {
				t.Errorf("%s watch: event %d (%s) does not come after event %d (%s): resourceVersions must strictly increase along a watch", what, len(events), e, len(events)-1, prev)
			}
		}
		events = append(events, e)
	}
	return events
}

func describeEvent(t *testing.T, ev watch.Event) watchedEvent {
	t.Helper()
	m, err := meta.Accessor(ev.Object)
	if err != nil {
		t.Fatalf("watch sent %s %T: %v", ev.Type, ev.Object, err)
	}
	return watchedEvent{typ: ev.Type, name: m.GetName(), rv: m.GetResourceVersion()}
}

// checkAddedThenDeleted checks that events are one ADDED for each of names,
// then one DELETED for each, in the order a create-all, delete-all run gives.
func checkAddedThenDeleted(t *testing.T, kind string, events []watchedEvent, names []string) {
	t.Helper()
	var added, deleted []string
	for i, e := range events {
		switch {
		case e.typ == watch.Added && i < len(names):
			added = append(added, e.name)
		case e.typ == watch.Deleted && i >= len(names):
			deleted = append(deleted, e.name)
		default:
			t.Errorf("%s event %d is %s; want %d ADDED, then %d DELETED", kind, i, e, len(names), len(names))
		}
	}
	slices.Sort(added)
	slices.Sort(deleted)
	want := slices.Sorted(slices.Values(names))
	if !slices.Equal(added, want) || !slices.Equal(deleted, want) {
		t.Errorf("%s events: ADDED %v, DELETED %v; want each of %v once", kind, added, deleted, want)
	}
}

// checkResumable starts a watch at the resourceVersion of each event but the
// last and checks that its first event is the next one of the stream.
func checkResumable(ctx context.Context, t *testing.T, kind string, events []watchedEvent, watchFrom func(context.Context, string) (watch.Interface, error)) {
	t.Helper()
	for i := range len(events) - 1 {
		w, err := watchFrom(ctx, events[i].rv)
		if err != nil {
			t.Fatalf("watching %ss from resourceVersion %s (event %d, %s): %v", kind, events[i].rv, i, events[i], err)
		}
		got := describeEvent(t, nextWatchEvent(t, w, kind+"s from "+events[i].rv))
		w.Stop()
		if got != events[i+1] {
			t.Errorf("a %s watch resumed at event %d (%s) starts with %s; want event %d, %s", kind, i, events[i], got, i+1, events[i+1])
		}
	}
}
