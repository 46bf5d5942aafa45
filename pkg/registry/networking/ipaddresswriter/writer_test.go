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

package ipaddresswriter

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/kubernetes/fake"
)

func TestUnboundWriterUsesLoopback(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	w := New(nil, nil, client.NetworkingV1())
	obj := &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: "10.96.0.10"},
		Spec:       networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: "web"}},
	}
	if _, err := w.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create before Bind: %v", err)
	}
	if _, err := client.NetworkingV1().IPAddresses().Get(ctx, obj.Name, metav1.GetOptions{}); err != nil {
		t.Fatalf("the loopback client did not get the create: %v", err)
	}
	if err := w.Delete(ctx, obj.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete before Bind: %v", err)
	}
	if _, err := client.NetworkingV1().IPAddresses().Get(ctx, obj.Name, metav1.GetOptions{}); err == nil {
		t.Fatal("the loopback client did not get the delete")
	}
	if err := w.Bind(nil); err == nil {
		t.Error("Bind(nil) succeeded, want an error")
	}
}

func TestRequestContext(t *testing.T) {
	w := New(nil, nil, nil)
	type key struct{}
	deadline := time.Now().Add(time.Hour)
	parent, cancelParent := context.WithDeadline(context.WithValue(context.Background(), key{}, "service request"), deadline)
	parent = genericapirequest.WithUser(parent, &user.DefaultInfo{Name: "alice"})

	ctx, cancel, err := w.requestContext(parent, http.MethodPost, ipAddressesPath)
	if err != nil {
		t.Fatalf("requestContext: %v", err)
	}
	defer cancel()
	if u, ok := genericapirequest.UserFrom(ctx); !ok || u != w.user {
		t.Errorf("user = %v, want the loopback user %v", u, w.user)
	}
	if ctx.Value(key{}) != nil {
		t.Error("the context carries the caller's values; want only its deadline and cancellation")
	}
	if got, ok := ctx.Deadline(); !ok || !got.Equal(deadline) {
		t.Errorf("deadline = %v, %v; want the caller's %v", got, ok, deadline)
	}
	cancelParent()
	select {
	case <-ctx.Done():
		if !errors.Is(context.Cause(ctx), context.Canceled) {
			t.Errorf("cause = %v, want the caller's cancellation", context.Cause(ctx))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("canceling the caller did not cancel the write")
	}
}

// TestRequestInfo checks that the writes carry the RequestInfo of the loopback
// requests they stand for: a POST to the collection, a DELETE of the object.
func TestRequestInfo(t *testing.T) {
	w := New(nil, nil, nil)
	for _, tc := range []struct {
		method, path string
		want         genericapirequest.RequestInfo
	}{{
		method: http.MethodPost, path: "/apis/networking.k8s.io/v1/ipaddresses",
		want: genericapirequest.RequestInfo{IsResourceRequest: true, Path: "/apis/networking.k8s.io/v1/ipaddresses", Verb: "create",
			APIPrefix: "apis", APIGroup: "networking.k8s.io", APIVersion: "v1", Resource: "ipaddresses", Parts: []string{"ipaddresses"}},
	}, {
		method: http.MethodDelete, path: "/apis/networking.k8s.io/v1/ipaddresses/10.96.0.10",
		want: genericapirequest.RequestInfo{IsResourceRequest: true, Path: "/apis/networking.k8s.io/v1/ipaddresses/10.96.0.10", Verb: "delete",
			APIPrefix: "apis", APIGroup: "networking.k8s.io", APIVersion: "v1", Resource: "ipaddresses", Name: "10.96.0.10",
			Parts: []string{"ipaddresses", "10.96.0.10"}},
	}} {
		t.Run(tc.method, func(t *testing.T) {
			ctx, cancel, err := w.requestContext(context.Background(), tc.method, tc.path)
			if err != nil {
				t.Fatalf("requestContext: %v", err)
			}
			defer cancel()
			info, ok := genericapirequest.RequestInfoFrom(ctx)
			if !ok || !reflect.DeepEqual(*info, tc.want) {
				t.Errorf("request info = %+v, want %+v", info, tc.want)
			}
			if ns, _ := genericapirequest.NamespaceFrom(ctx); ns != "" {
				t.Errorf("namespace = %q, want none: IPAddresses are cluster-scoped", ns)
			}
		})
	}
}
