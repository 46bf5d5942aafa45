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
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/test/integration/framework"
)

// dualStackRanges are the service ranges of tests that need a ClusterIP of each family.
const dualStackRanges = "10.100.0.0/24,fd00:10:100::/112"

// TestServiceAndIPAddressShareOneWrite checks that a Service create stores the
// Service and one IPAddress in one etcd transaction: a resourceVersion is the
// etcd revision of the write, so the IPAddress that rode in the Service's
// transaction has the Service's resourceVersion. A Service with one ClusterIP
// shares its revision with that IPAddress. A dual-stack Service shares it with
// exactly one of its two, and the other is written on its own, so that every
// IPAddress watch event has a resourceVersion of its own.
func TestServiceAndIPAddressShareOneWrite(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, framework.WithFlags("--service-cluster-ip-range="+dualStackRanges))
	defer s.Stop()
	waitKubernetesService(ctx, t, s.Client)

	for _, svc := range []*corev1.Service{
		clusterIPService("dynamic-ipv4"),
		withClusterIPs(clusterIPService("static-ipv4"), "10.100.0.200"),
		withFamilies(clusterIPService("dynamic-ipv6"), corev1.IPFamilyPolicySingleStack, corev1.IPv6Protocol),
	} {
		t.Run(svc.Name, func(t *testing.T) {
			created := createService(ctx, t, s.Client, svc)
			if len(created.Spec.ClusterIPs) != 1 {
				t.Fatalf("Service %s got ClusterIPs %v, want one", created.Name, created.Spec.ClusterIPs)
			}
			ip := waitIPAddress(ctx, t, s.Client, created.Spec.ClusterIP, created)
			if ip.ResourceVersion != created.ResourceVersion {
				t.Errorf("Service %s/%s (resourceVersion %s) and its IPAddress %s (resourceVersion %s) were stored at different etcd revisions; want one transaction, both at the Service's revision",
					created.Namespace, created.Name, created.ResourceVersion, ip.Name, ip.ResourceVersion)
			}
		})
	}

	for _, svc := range []*corev1.Service{
		withFamilies(clusterIPService("prefer-dual-stack"), corev1.IPFamilyPolicyPreferDualStack),
		withFamilies(clusterIPService("require-dual-stack"), corev1.IPFamilyPolicyRequireDualStack),
		withFamilies(clusterIPService("require-dual-ipv6-first"), corev1.IPFamilyPolicyRequireDualStack, corev1.IPv6Protocol, corev1.IPv4Protocol),
	} {
		t.Run(svc.Name, func(t *testing.T) {
			created := createService(ctx, t, s.Client, svc)
			if len(created.Spec.ClusterIPs) != 2 {
				t.Fatalf("Service %s got ClusterIPs %v, want one per family", created.Name, created.Spec.ClusterIPs)
			}
			var addrs []*networkingv1.IPAddress
			for _, clusterIP := range created.Spec.ClusterIPs {
				addrs = append(addrs, waitIPAddress(ctx, t, s.Client, clusterIP, created))
			}
			if addrs[0].ResourceVersion == addrs[1].ResourceVersion {
				t.Errorf("IPAddresses %s and %s of Service %s/%s share resourceVersion %s; want each written at a revision of its own",
					addrs[0].Name, addrs[1].Name, created.Namespace, created.Name, addrs[0].ResourceVersion)
			}
			var shared []string
			for _, a := range addrs {
				if a.ResourceVersion == created.ResourceVersion {
					shared = append(shared, a.Name)
				}
			}
			if len(shared) != 1 {
				t.Errorf("Service %s/%s (resourceVersion %s): IPAddresses %s at %s and %s at %s, %d of them at the Service's revision; want exactly one written in the Service's transaction",
					created.Namespace, created.Name, created.ResourceVersion, addrs[0].Name, addrs[0].ResourceVersion, addrs[1].Name, addrs[1].ResourceVersion, len(shared))
			}
		})
	}
}

// withClusterIPs asks for static ClusterIPs.
func withClusterIPs(svc *corev1.Service, ips ...string) *corev1.Service {
	svc.Spec.ClusterIP = ips[0]
	svc.Spec.ClusterIPs = ips
	return svc
}

// withFamilies sets svc's IP family policy and, when given, its families in order.
func withFamilies(svc *corev1.Service, policy corev1.IPFamilyPolicy, families ...corev1.IPFamily) *corev1.Service {
	svc.Spec.IPFamilyPolicy = ptr.To(policy)
	svc.Spec.IPFamilies = families
	return svc
}

// TestServiceDeleteTakesItsIPAddressAlong checks that a Service delete
// deletes the Service and one of its IPAddresses in one etcd transaction: the
// DELETED events of both carry the same resourceVersion (the revision of the
// delete). A dual-stack Service's other IPAddress is deleted on its own, so
// no two IPAddress events share one. Either way, nothing is left, and the
// addresses can be had again at once.
func TestServiceDeleteTakesItsIPAddressAlong(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, framework.WithFlags("--service-cluster-ip-range="+dualStackRanges))
	defer s.Stop()
	waitKubernetesService(ctx, t, s.Client)
	services := s.Client.CoreV1().Services(metav1.NamespaceDefault)
	addresses := s.Client.NetworkingV1().IPAddresses()

	for _, tc := range []struct {
		svc    *corev1.Service
		shared int
	}{
		{withClusterIPs(clusterIPService("static-ipv4"), "10.100.0.201"), 1},
		{withFamilies(clusterIPService("dynamic-ipv6"), corev1.IPFamilyPolicySingleStack, corev1.IPv6Protocol), 1},
		{withFamilies(clusterIPService("require-dual-stack"), corev1.IPFamilyPolicyRequireDualStack), 1},
	} {
		t.Run(tc.svc.Name, func(t *testing.T) {
			created := createService(ctx, t, s.Client, tc.svc.DeepCopy())
			// Watch from the latest of the Service's and its IPAddresses' writes.
			last := created.ResourceVersion
			for _, ip := range created.Spec.ClusterIPs {
				if a := waitIPAddress(ctx, t, s.Client, ip, created); revision(t, a.ResourceVersion) > revision(t, last) {
					last = a.ResourceVersion
				}
			}
			ipWatch, err := addresses.Watch(ctx, metav1.ListOptions{ResourceVersion: last})
			if err != nil {
				t.Fatal(err)
			}
			defer ipWatch.Stop()
			svcWatch, err := services.Watch(ctx, metav1.ListOptions{ResourceVersion: last, FieldSelector: "metadata.name=" + created.Name})
			if err != nil {
				t.Fatal(err)
			}
			defer svcWatch.Stop()

			if err := services.Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			svcDeleted := describeEvent(t, nextWatchEvent(t, svcWatch, "Service"))
			ipDeleted := collectEvents(t, ipWatch, "IPAddress", len(created.Spec.ClusterIPs))
			shared := 0
			for _, e := range ipDeleted {
				if e.typ != watch.Deleted {
					t.Errorf("IPAddress watch: %s, want only deletes", e)
				}
				if e.rv == svcDeleted.rv {
					shared++
				}
			}
			if svcDeleted.typ != watch.Deleted || shared != tc.shared {
				t.Errorf("Service %s, IPAddress events %v: want %d IPAddress deleted at the Service's delete revision", svcDeleted, ipDeleted, tc.shared)
			}

			// The addresses are free again: the same Service gets them back.
			again := createService(ctx, t, s.Client, withClusterIPs(tc.svc.DeepCopy(), created.Spec.ClusterIPs...))
			for _, ip := range again.Spec.ClusterIPs {
				waitIPAddress(ctx, t, s.Client, ip, again)
			}
			if err := services.Delete(ctx, again.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
