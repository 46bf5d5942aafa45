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
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/pkg/controlplane/controller/servicebridge"
)

var web = &ServiceRecord{Namespace: "apps", Name: "web", Bridge: "web-renumber-bridge"}

func webSlice(name, ip string) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: name, Labels: map[string]string{
			discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io",
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
}

// copies describes the bridge's slices: name, owner count and endpoints.
func copies(t *testing.T, client *fake.Clientset) []string {
	t.Helper()
	l, err := client.DiscoveryV1().EndpointSlices("apps").List(context.Background(), metav1.ListOptions{LabelSelector: servicebridge.Selector(web.Bridge).String()})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range l.Items {
		out = append(out, s.Name+" owners="+strings.Repeat("x", len(s.OwnerReferences))+" "+strings.Join(s.Endpoints[0].Addresses, ","))
	}
	return out
}

// adopt makes web's bridge the owner of its slice name, as the apiservers' controller would.
func adopt(ctx context.Context, t *testing.T, client *fake.Clientset, name string) {
	t.Helper()
	s, err := client.DiscoveryV1().EndpointSlices("apps").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: web.Bridge, UID: "uid", Controller: ptr.To(true)}}
	if _, err := client.DiscoveryV1().EndpointSlices("apps").Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestWriteAhead checks the copies written before the bridge exists: one per
// slice of the Service, unowned, reported once; a second run writes nothing
// and reports nothing; deleteAhead removes the unowned ones and keeps those
// the bridge adopted.
func TestWriteAhead(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset(webSlice("web-aaaaa", "198.18.0.1"), webSlice("web-bbbbb", "198.18.0.2"))
	var log bytes.Buffer
	r := New(client, Options{Log: &log})
	for range 2 {
		if err := r.writeAhead(ctx, web); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"web-renumber-bridge-aaaaa owners= 198.18.0.1", "web-renumber-bridge-bbbbb owners= 198.18.0.2"}
	if got := copies(t, client); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("copies written ahead: %q, want %q", got, want)
	}
	if got := strings.Count(log.String(), "2 EndpointSlices written for its bridge"); got != 1 || strings.Count(log.String(), "\n") != 1 {
		t.Errorf("log of two runs:\n%s\nwant one line of 2 EndpointSlices written", log.String())
	}

	adopt(ctx, t, client, "web-renumber-bridge-aaaaa")
	if err := r.deleteAhead(ctx, web.Namespace, web.Bridge); err != nil {
		t.Fatal(err)
	}
	want = []string{"web-renumber-bridge-aaaaa owners=x 198.18.0.1"}
	if got := copies(t, client); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("copies after deleteAhead: %q, want %q", got, want)
	}
}

// TestWaitAdopted checks the wait before the cut-over: it names the copies
// still unowned when its time is up, ignores copies of bridges it did not
// record, and returns once every copy has an owner.
func TestWaitAdopted(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset(webSlice("web-aaaaa", "198.18.0.1"))
	r := New(client, Options{KubernetesTimeout: 300 * time.Millisecond})
	if err := r.writeAhead(ctx, web); err != nil {
		t.Fatal(err)
	}
	other := &ServiceRecord{Namespace: "apps", Name: "db", Bridge: "db-renumber-bridge"}
	st := &State{Services: []ServiceRecord{*other}}
	if err := r.waitAdopted(ctx, st); err != nil {
		t.Errorf("wait with only another bridge's copy unowned: %v", err)
	}
	st.Services = append(st.Services, *web)
	err := r.waitAdopted(ctx, st)
	if err == nil || !strings.Contains(err.Error(), "1 EndpointSlices written for bridges have no owner (apps/web-renumber-bridge-aaaaa)") {
		t.Errorf("wait with the copy unowned: %v; want it named", err)
	}
	adopt(ctx, t, client, "web-renumber-bridge-aaaaa")
	if err := r.waitAdopted(ctx, st); err != nil {
		t.Errorf("wait with the copy adopted: %v", err)
	}
}

// TestIsDNS checks the DNS Service is told by its namespace and label.
func TestIsDNS(t *testing.T) {
	dns := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-dns", Labels: map[string]string{"k8s-app": "kube-dns"}}}
	other := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "kube-dns", Labels: map[string]string{"k8s-app": "kube-dns"}}}
	if !isDNS(dns) || isDNS(other) {
		t.Errorf("isDNS(kube-system/kube-dns) = %t, isDNS(apps/kube-dns) = %t; want true, false", isDNS(dns), isDNS(other))
	}
}
