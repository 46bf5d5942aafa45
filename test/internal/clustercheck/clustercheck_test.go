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

package clustercheck

import (
	"context"
	"math/big"
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
)

// service is a Service with ClusterIPs ips (first one primary) and NodePort nodePort (0: none).
func service(ns, name, uid string, nodePort int32, ips ...string) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid)},
		Spec:       corev1.ServiceSpec{ClusterIPs: ips, Ports: []corev1.ServicePort{{Port: 80, NodePort: nodePort, TargetPort: intstr.FromInt32(6443)}}},
	}
	if len(ips) > 0 {
		svc.Spec.ClusterIP = ips[0]
	}
	return svc
}

// ipAddress is an allocator IPAddress of Service ns/name.
func ipAddress(ip, ns, name string) *networkingv1.IPAddress {
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: ip, Labels: map[string]string{ManagedByLabel: ManagedByAllocator}},
		Spec:       networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: ns, Name: name}},
	}
}

// bitmapOf marks ips in a bitmap over cidr, bit i for network+1+i.
func bitmapOf(cidr string, ips ...string) *corev1.RangeAllocation {
	first := addrInt(netip.MustParsePrefix(cidr).Masked().Addr())
	first.Add(first, big.NewInt(1))
	marks := new(big.Int)
	for _, ip := range ips {
		marks.SetBit(marks, int(new(big.Int).Sub(addrInt(netip.MustParseAddr(ip)), first).Int64()), 1)
	}
	return &corev1.RangeAllocation{Range: cidr, Data: marks.Bytes()}
}

func TestCheckClusterIPBitmapBothFamilies(t *testing.T) {
	tests := []struct {
		name string
		ra   *corev1.RangeAllocation
		held map[string]string
		want []string
	}{
		{name: "IPv6 agrees", ra: bitmapOf("fd00:10:96::/108", "fd00:10:96::1", "fd00:10:96::5"),
			held: map[string]string{"fd00:10:96::1": "default/kubernetes", "fd00:10:96::5": "a/b", "10.96.0.9": "a/v4", "fd00:10:96::2:0": "a/past-the-bitmap"}},
		{name: "IPv6 unmarked", ra: bitmapOf("fd00:10:96::/108", "fd00:10:96::1"),
			held: map[string]string{"fd00:10:96::1": "default/kubernetes", "fd00:10:96::7": "a/b"},
			want: []string{"marks 1 addresses, Services hold 2", "ClusterIP fd00:10:96::7 of Service a/b is not marked"}},
		{name: "IPv4 leaked bit", ra: bitmapOf("10.96.0.0/16", "10.96.0.1", "10.96.3.3"),
			held: map[string]string{"10.96.0.1": "default/kubernetes"},
			want: []string{"marks 2 addresses, Services hold 1"}},
		{name: "IPv4 /12 agrees past the first 2^16", ra: bitmapOf("10.96.0.0/12", "10.96.0.1", "10.100.7.9", "10.111.255.254"),
			held: map[string]string{"10.96.0.1": "default/kubernetes", "10.100.7.9": "a/b", "10.111.255.254": "a/last", "10.111.255.255": "a/broadcast"}},
		{name: "IPv4 /12 unmarked past the first 2^16", ra: bitmapOf("10.96.0.0/12", "10.96.0.1"),
			held: map[string]string{"10.96.0.1": "default/kubernetes", "10.100.7.9": "a/b"},
			want: []string{"marks 1 addresses, Services hold 2", "ClusterIP 10.100.7.9 of Service a/b is not marked"}},
		{name: "no bitmap", ra: nil, want: []string{"no ClusterIP bitmap at /ranges/serviceips"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Problems
			CheckClusterIPBitmap(&p, ClusterIPBitmapKey, tc.ra, tc.held)
			assertProblems(t, p.Result(), tc.want)
		})
	}
}

func TestCompareServices(t *testing.T) {
	before := newSnapshot(time.Now(), []corev1.Service{
		*service("keep", "same", "1", 30001, "10.0.0.1"),
		*service("keep", "gone", "2", 0, "10.0.0.2"),
		*service("keep", "recreated", "3", 0, "10.0.0.3"),
		*service("keep", "moved", "4", 0, "10.0.0.4"),
		*service("keep", "port", "5", 30005, "10.0.0.5"),
		*service("load", "churn", "6", 0, "10.0.0.6"),
		*service("default", "kubernetes", "7", 0, "10.0.0.1", "fd00::1"),
	}, nil)
	now := newSnapshot(time.Now(), []corev1.Service{
		*service("keep", "same", "1", 30001, "10.0.0.1"),
		*service("keep", "recreated", "33", 0, "10.0.0.3"),
		*service("keep", "moved", "4", 0, "10.0.0.44"),
		*service("keep", "port", "5", 30055, "10.0.0.5"),
		*service("default", "kubernetes", "7", 0, "10.0.0.1"),
	}, nil)
	var p Problems
	kept := compareServices(&p, before, now, func(r ServiceRecord) bool { return r.Namespace != "load" })
	if kept != 1 {
		t.Errorf("kept = %d, want 1", kept)
	}
	assertProblems(t, p.Result(), []string{
		"Service keep/gone is gone", "Service keep/recreated was recreated", "Service keep/moved changed its ClusterIPs from [10.0.0.4] to [10.0.0.44]",
		"Service keep/port changed its NodePorts from [30005] to [30055]",
	})
}

func TestSnapshotRoundTrip(t *testing.T) {
	path := t.TempDir() + "/s.json"
	s := newSnapshot(time.Now().Truncate(time.Second), []corev1.Service{*service("a", "b", "1", 30000, "10.0.0.1")}, map[string]int32{"kube-apiserver-x": 2})
	if err := WriteSnapshot(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSnapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Services) != 1 || got.Services[0].UID != "1" || got.Restarts["kube-apiserver-x"] != 2 || !got.Time.Equal(s.Time) {
		t.Fatalf("read back %+v", got)
	}
	if _, err := ReadSnapshot(t.TempDir() + "/missing"); err == nil {
		t.Fatal("ReadSnapshot of a missing file succeeded")
	}
}

// kubernetesObjects are the kubernetes Service and its endpoints for addresses of apiservers.
func kubernetesObjects(dual bool, v4, v6 []string) []runtime.Object {
	svc := service("default", "kubernetes", "k", 0, "10.96.0.1")
	single := corev1.IPFamilyPolicySingleStack
	svc.Spec.IPFamilyPolicy = &single
	if dual {
		policy := corev1.IPFamilyPolicyRequireDualStack
		svc.Spec.IPFamilyPolicy, svc.Spec.ClusterIPs = &policy, []string{"10.96.0.1", "fd00:10:96::1"}
	}
	slice := func(name string, t discoveryv1.AddressType, addrs []string) *discoveryv1.EndpointSlice {
		ready, port := true, int32(6443)
		s := &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: "kubernetes"}},
			AddressType: t, Ports: []discoveryv1.EndpointPort{{Port: &port}},
		}
		for _, a := range addrs {
			s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{a}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
		}
		return s
	}
	endpoints := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kubernetes"}}
	subset := corev1.EndpointSubset{}
	for _, a := range v4 {
		subset.Addresses = append(subset.Addresses, corev1.EndpointAddress{IP: a})
	}
	endpoints.Subsets = []corev1.EndpointSubset{subset}
	objects := []runtime.Object{svc, endpoints, slice("kubernetes", discoveryv1.AddressTypeIPv4, v4)}
	if v6 != nil {
		objects = append(objects, slice("kubernetes-ipv6", discoveryv1.AddressTypeIPv6, v6))
	}
	return objects
}

func TestKubernetesServiceProblems(t *testing.T) {
	ranges := []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16"), netip.MustParsePrefix("fd00:10:96::/108")}
	v4, v6 := []string{"198.18.0.1", "198.18.0.2"}, []string{"fd6e:6574:6c75::1", "fd6e:6574:6c75::2"}
	tests := []struct {
		name    string
		objects []runtime.Object
		shape   Shape
		want    []string
	}{
		{name: "single", objects: kubernetesObjects(false, v4, nil), shape: Shape{Ranges: ranges, APIServers: 2, Families: "single"}},
		{name: "dual", objects: kubernetesObjects(true, v4, v6), shape: Shape{Ranges: ranges, APIServers: 2, Families: "dual"}},
		{name: "dual, either shape", objects: kubernetesObjects(true, v4, v6), shape: Shape{Ranges: ranges}},
		{name: "single where dual is due", objects: kubernetesObjects(false, v4, nil), shape: Shape{Ranges: ranges, Families: "dual"},
			want: []string{"Service is SingleStack, want RequireDualStack"}},
		{name: "stale secondary slice", objects: kubernetesObjects(false, v4, v6), shape: Shape{Ranges: ranges},
			want: []string{"EndpointSlice kubernetes-ipv6 (IPv6) should not exist", "EndpointSlices [kubernetes kubernetes-ipv6], want 1"}},
		{name: "dual without its secondary slice", objects: kubernetesObjects(true, v4, nil), shape: Shape{Ranges: ranges},
			want: []string{"EndpointSlices [kubernetes], want 2"}},
		{name: "an apiserver missing", objects: kubernetesObjects(false, v4, nil), shape: Shape{Ranges: ranges, APIServers: 3},
			want: []string{"EndpointSlice kubernetes holds 2 endpoints [198.18.0.1 198.18.0.2], want one per apiserver (3)"}},
		{name: "slices disagree", objects: kubernetesObjects(true, v4, v6[:1]), shape: Shape{Ranges: ranges},
			want: []string{"EndpointSlices disagree on the number of apiservers"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := KubernetesServiceProblems(context.Background(), fake.NewClientset(tc.objects...), tc.shape)
			if err != nil {
				t.Fatal(err)
			}
			assertProblems(t, got, tc.want)
		})
	}
}

func TestRunFindsDuplicatesMissingIPAddressesAndWarnings(t *testing.T) {
	ranges := []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}
	objects := append(kubernetesObjects(false, []string{"198.18.0.1"}, nil),
		ipAddress("10.96.0.1", "default", "kubernetes"),
		service("a", "one", "1", 30001, "10.96.0.10"), ipAddress("10.96.0.10", "a", "one"),
		service("a", "two", "2", 30001, "10.96.0.10"),
		service("a", "three", "3", 0, "10.96.0.11"),
		ipAddress("10.96.0.99", "a", "gone"),
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "e1", CreationTimestamp: metav1.Now()},
			Type: corev1.EventTypeWarning, Reason: "BitmapOnlyAPIServerDetected", Count: 2, LastTimestamp: metav1.Now()},
	)
	cs := fake.NewClientset(objects...)
	r, err := Run(context.Background(), Options{Client: cs, RepairInterval: time.Millisecond, Shape: Shape{Ranges: ranges},
		ExpectWarnings: []string{"KubernetesServiceDualStack"}, ForbidWarnings: []string{"BitmapOnlyAPIServerDetected"}})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]Row{}
	for _, row := range r.Rows {
		rows[row.Check] = row
	}
	for check, want := range map[string]string{
		"duplicate ClusterIPs":        "ClusterIP 10.96.0.10 is held by Services a/one and a/two",
		"duplicate NodePorts":         "NodePort 30001 is held by Services a/one and a/two",
		"ClusterIPs have IPAddresses": "ClusterIP 10.96.0.11 of Service a/three has no IPAddress",
		"Warning events":              "2 BitmapOnlyAPIServerDetected Warning event(s)",
	} {
		if row := rows[check]; row.Status != "FAIL" || !strings.Contains(row.Detail, want) {
			t.Errorf("%s: %+v, want FAIL with %q", check, row, want)
		}
	}
	if !strings.Contains(rows["ClusterIPs have IPAddresses"].Detail, "IPAddress 10.96.0.99 is orphaned") {
		t.Errorf("orphaned IPAddress not reported: %+v", rows["ClusterIPs have IPAddresses"])
	}
	if !strings.Contains(rows["Warning events"].Detail, "no KubernetesServiceDualStack Warning event") {
		t.Errorf("missing expected warning not reported: %+v", rows["Warning events"])
	}
	if row := rows["kubernetes Service"]; row.Status != "ok" {
		t.Errorf("kubernetes Service: %+v", row)
	}
	if !r.Failed() {
		t.Error("Failed() = false")
	}
}

// assertProblems checks got holds one problem per want substring, in any order.
func assertProblems(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("problems %q, want %d matching %q", got, len(want), want)
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.Contains(g, w)
		}
		if !found {
			t.Errorf("no problem contains %q in %q", w, got)
		}
	}
}

func TestCheckClusterIPBitmapMarksCountsLeaksWithoutFailing(t *testing.T) {
	held := map[string]string{"10.96.0.1": "default/kubernetes", "10.96.0.9": "a/b"}
	var p Problems
	if leaked := CheckClusterIPBitmapMarks(&p, ClusterIPBitmapKey, bitmapOf("10.96.0.0/16", "10.96.0.1", "10.96.0.9", "10.96.3.3", "10.96.3.4"), held); leaked != 2 || p.Len() != 0 {
		t.Fatalf("leaked = %d, problems %q; want 2 leaks and no problem", leaked, p.Result())
	}
	if leaked := CheckClusterIPBitmapMarks(&p, ClusterIPBitmapKey, bitmapOf("10.96.0.0/16", "10.96.0.1", "10.96.3.3"), held); leaked != 1 {
		t.Fatalf("leaked = %d, want 1", leaked)
	}
	assertProblems(t, p.Result(), []string{"ClusterIP 10.96.0.9 of Service a/b is not marked in bitmap /ranges/serviceips"})
}
