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

package apiserverranges

import (
	"context"
	"net"
	"reflect"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"
	"k8s.io/utils/ptr"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// identityLease is an apiserver identity Lease renewed renewed ago, annotated with ranges unless "".
func identityLease(id string, renewed time.Duration, ranges string) *coordinationv1.Lease {
	l := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: id,
			Labels: map[string]string{controlplaneapiserver.IdentityLeaseComponentLabelKey: controlplaneapiserver.KubeAPIServer}},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(id + "_uuid"),
			LeaseDurationSeconds: ptr.To[int32](3600),
			RenewTime:            &metav1.MicroTime{Time: now.Add(-renewed)},
		},
	}
	if ranges != "" {
		l.Annotations = map[string]string{Annotation: ranges}
	}
	return l
}

func ids(list []Apiserver) []string {
	var out []string
	for _, a := range list {
		out = append(out, a.ID)
	}
	return out
}

func TestCheck(t *testing.T) {
	otherLeader := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "kube-scheduler"},
		Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To[int32](15), RenewTime: &metav1.MicroTime{Time: now}}}
	client := fake.NewClientset(
		identityLease("apiserver-b", time.Minute, "10.96.0.0/16,fd00:10:96::/108"),
		identityLease("apiserver-a", time.Second, "10.96.0.0/16, fd00:10:96:0::/108"),
		identityLease("apiserver-old", time.Minute, "10.96.0.0/16"),
		identityLease("apiserver-upstream", time.Minute, ""),
		identityLease("apiserver-gone", 2*time.Hour, "10.0.0.0/24"),
		otherLeader,
	)
	r, err := Check(context.Background(), client, "10.96.0.0/16,fd00:10:96::/108", now)
	if err != nil {
		t.Fatal(err)
	}
	for what, got := range map[string][]string{"serving": ids(r.Serving), "other": ids(r.Other), "unpublished": ids(r.Unpublished)} {
		want := map[string][]string{
			"serving":     {"apiserver-a", "apiserver-b"},
			"other":       {"apiserver-old"},
			"unpublished": {"apiserver-upstream"},
		}[what]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	if r.Other[0].Ranges != "10.96.0.0/16" || r.Serving[0].Holder != "apiserver-a_uuid" {
		t.Errorf("report details = %+v", r)
	}
	if r.Rolled() {
		t.Errorf("Rolled() with an apiserver on other ranges and one unpublished")
	}
	if _, err := Check(context.Background(), client, "10.96.0.0/16,bogus", now); err == nil {
		t.Errorf("Check with a bad wanted range succeeded")
	}
}

func TestFormat(t *testing.T) {
	_, v4, _ := net.ParseCIDR("10.96.0.0/16")
	_, v6, _ := net.ParseCIDR("fd00:10:96::/108")
	if got := Format(*v4, net.IPNet{}); got != "10.96.0.0/16" {
		t.Errorf("Format single-stack = %q", got)
	}
	if got := Format(*v6, *v4); got != "fd00:10:96::/108,10.96.0.0/16" {
		t.Errorf("Format dual-stack, IPv6 primary = %q", got)
	}
}

// TestPublish: the annotation lands on the apiserver's Lease, other
// annotations stay, and a Lease recreated without it gets it again.
func TestPublish(t *testing.T) {
	lease := identityLease("apiserver-a", 0, "")
	lease.Annotations = map[string]string{"keep": "me"}
	client := fake.NewClientset(lease, identityLease("apiserver-b", 0, ""))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); Publish(ctx, client, "apiserver-a", "10.96.0.0/16") }()
	t.Cleanup(func() { cancel(); <-done })

	waitAnnotated(t, client, "apiserver-a", map[string]string{"keep": "me", Annotation: "10.96.0.0/16"})

	leases := client.CoordinationV1().Leases(metav1.NamespaceSystem)
	if err := leases.Delete(context.Background(), "apiserver-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := leases.Create(context.Background(), identityLease("apiserver-a", 0, ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAnnotated(t, client, "apiserver-a", map[string]string{Annotation: "10.96.0.0/16"})

	b, err := leases.Get(context.Background(), "apiserver-b", metav1.GetOptions{})
	if err != nil || len(b.Annotations) != 0 {
		t.Errorf("another apiserver's Lease = %v, %v; want it untouched", b.GetAnnotations(), err)
	}
}

func waitAnnotated(t *testing.T, client *fake.Clientset, id string, want map[string]string) {
	t.Helper()
	var last runtime.Object
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		l, err := client.CoordinationV1().Leases(metav1.NamespaceSystem).Get(ctx, id, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = l
		return reflect.DeepEqual(l.Annotations, want), nil
	})
	if err != nil {
		t.Fatalf("Lease %s never had annotations %v; last %v", id, want, last)
	}
}

func TestNeedsPatch(t *testing.T) {
	lease := func(uid types.UID, annotations map[string]string) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{UID: uid, Annotations: annotations}}
	}
	const mine, theirs = "10.96.0.0/16", "10.0.0.0/16"
	for _, tc := range []struct {
		name    string
		lease   *coordinationv1.Lease
		patched types.UID
		want    bool
	}{
		{name: "new lease", lease: lease("a", nil), want: true},
		{name: "published", lease: lease("a", map[string]string{Annotation: mine}), patched: "a"},
		{name: "another value on a lease not patched yet", lease: lease("a", map[string]string{Annotation: theirs}), want: true},
		// another apiserver of the host published after this one: do not patch back
		{name: "another value after this publisher's patch", lease: lease("a", map[string]string{Annotation: theirs}), patched: "a"},
		{name: "annotation removed", lease: lease("a", nil), patched: "a", want: true},
		{name: "lease recreated", lease: lease("b", map[string]string{Annotation: theirs}), patched: "a", want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := needsPatch(tc.lease, mine, tc.patched); got != tc.want {
				t.Errorf("needsPatch = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestIdentitySelectorIsUpstreams(t *testing.T) {
	if want := controlplaneapiserver.IdentityLeaseComponentLabelKey + "=" + controlplaneapiserver.KubeAPIServer; IdentitySelector != want {
		t.Errorf("IdentitySelector = %q, upstream's identity Leases carry %q", IdentitySelector, want)
	}
}
