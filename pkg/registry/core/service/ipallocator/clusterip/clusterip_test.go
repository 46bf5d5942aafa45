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

package clusterip

import (
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"10.96.0.10", "10.96.0.10"},
		{"010.096.000.010", "10.96.0.10"}, // stored before 1.20: decimal, not octal
		{"fd00:10:96::a", "fd00:10:96::a"},
		{"FD00:0010:0096:0000::000A", "fd00:10:96::a"},
		{"::ffff:10.96.0.10", "10.96.0.10"},
		{"None", ""},
		{"", ""},
		{"10.96.0.256", ""},
	}
	for _, tc := range tests {
		got, ok := Parse(tc.in)
		if tc.want == "" {
			if ok {
				t.Errorf("Parse(%q) = %s, want no address", tc.in, got)
			}
			continue
		}
		if !ok || got != netip.MustParseAddr(tc.want) {
			t.Errorf("Parse(%q) = %s, %t, want %s", tc.in, got, ok, tc.want)
		}
	}
}

func TestIndex(t *testing.T) {
	client := fake.NewClientset()
	informer := informers.NewSharedInformerFactory(client, 0).Core().V1().Services().Informer()
	if err := AddIndexer(informer); err != nil {
		t.Fatal(err)
	}
	if err := AddIndexer(informer); err != nil {
		t.Fatalf("adding the index a second time: %v", err)
	}
	legacy := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "legacy"},
		Spec:       corev1.ServiceSpec{ClusterIPs: []string{"010.096.000.010", "FD00::A"}},
	}
	headless := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "headless"},
		Spec:       corev1.ServiceSpec{ClusterIPs: []string{"None"}},
	}
	for _, svc := range []*corev1.Service{legacy, headless} {
		if err := informer.GetIndexer().Add(svc); err != nil {
			t.Fatal(err)
		}
	}
	for _, ip := range []string{"10.96.0.10", "fd00::a"} {
		got, err := Holders(informer.GetIndexer(), netip.MustParseAddr(ip))
		if err != nil || len(got) != 1 || got[0].Name != "legacy" {
			t.Errorf("Holders(%s) = %v, %v, want the legacy Service", ip, got, err)
		}
		if !Holds(legacy, netip.MustParseAddr(ip)) {
			t.Errorf("Holds(legacy, %s) = false", ip)
		}
	}
	if got, _ := Holders(informer.GetIndexer(), netip.MustParseAddr("10.96.0.11")); len(got) != 0 {
		t.Errorf("Holders(10.96.0.11) = %v, want none", got)
	}
}
