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
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/component-base/featuregate"

	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/test/integration/framework"
)

// allocatorGates sets the two KEP-1880 gates.
func allocatorGates(multiCIDR, disableDualWrite bool) framework.Option {
	return framework.WithFeatureGates(map[featuregate.Feature]bool{
		features.MultiCIDRServiceAllocator: multiCIDR,
		features.DisableAllocatorDualWrite: disableDualWrite,
	})
}

// TestAllocatorGateCombinations creates a Service in each combination of
// MultiCIDRServiceAllocator and DisableAllocatorDualWrite and checks where its
// ClusterIP was recorded: an IPAddress exactly when the multi-CIDR allocator
// runs, a bit in the legacy bitmap exactly when the bitmap is in use or
// dual-written. (Dual-write without the multi-CIDR allocator is refused at
// start-up; pkg/features tests that.) Each apiserver has gates of its own, so
// the combinations run in parallel.
func TestAllocatorGateCombinations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	etcd := etcdClient(t)
	tests := []struct {
		multiCIDR, disableDualWrite bool
		wantIPAddress, wantBit      bool
	}{
		{multiCIDR: true, disableDualWrite: true, wantIPAddress: true},
		{multiCIDR: true, disableDualWrite: false, wantIPAddress: true, wantBit: true},
		{multiCIDR: false, disableDualWrite: true, wantBit: true},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("MultiCIDRServiceAllocator=%t,DisableAllocatorDualWrite=%t", tc.multiCIDR, tc.disableDualWrite), func(t *testing.T) {
			t.Parallel()
			prefix := framework.NewEtcdPrefix(t)
			s := framework.StartAPIServer(t, allocatorGates(tc.multiCIDR, tc.disableDualWrite), framework.WithEtcdPrefix(prefix),
				framework.WithFlags("--service-cluster-ip-range=10.100.0.0/24"))
			defer s.Stop()
			svc := createService(ctx, t, s.Client, clusterIPService("web"))
			ip := svc.Spec.ClusterIP

			_, err := s.Client.NetworkingV1().IPAddresses().Get(ctx, ip, metav1.GetOptions{})
			if gotIPAddress := err == nil; gotIPAddress != tc.wantIPAddress {
				t.Errorf("IPAddress %s exists: %t, want %t (get: %v)", ip, gotIPAddress, tc.wantIPAddress, err)
			}
			resp, err := etcd.Get(ctx, prefix+"/ranges/serviceips")
			if err != nil {
				t.Fatal(err)
			}
			gotBit := len(resp.Kvs) == 1 && bitSet(t, readRangeAllocation(ctx, t, etcd, prefix+"/ranges/serviceips"), ip)
			if gotBit != tc.wantBit {
				t.Errorf("bit of %s in the legacy bitmap: %t, want %t", ip, gotBit, tc.wantBit)
			}
		})
	}
}

// TestIPv6Slash64ServiceCIDR allocates from a /64, where upstream once handed
// out addresses outside the range (#138374, #134193), dynamically and at the
// range's far end statically.
func TestIPv6Slash64ServiceCIDR(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, framework.WithEtcdPrefix(framework.NewEtcdPrefix(t)),
		framework.WithFlags("--service-cluster-ip-range=fd00:64::/64"))
	cidr := mustPrefix(t, "fd00:64::/64")
	for i := range 100 {
		svc := createService(ctx, t, s.Client, clusterIPService(fmt.Sprintf("v6-%d", i)))
		if ip := mustAddr(t, svc.Spec.ClusterIP); !cidr.Contains(ip) || ip == cidr.Addr() {
			t.Fatalf("Service v6-%d got %s, not a host of %s", i, ip, cidr)
		}
		waitIPAddress(ctx, t, s.Client, svc.Spec.ClusterIP, svc)
	}
	last := clusterIPService("v6-last")
	last.Spec.ClusterIP = "fd00:64::ffff:ffff:ffff:ffff"
	got := createService(ctx, t, s.Client, last)
	waitIPAddress(ctx, t, s.Client, got.Spec.ClusterIP, got)
}

// TestNewServiceCIDRUsedWhenFirstIsFull fills the default ServiceCIDR, adds a
// second one and expects new Services to get addresses from it (#131866).
func TestNewServiceCIDRUsedWhenFirstIsFull(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, framework.WithEtcdPrefix(framework.NewEtcdPrefix(t)),
		framework.WithFlags("--service-cluster-ip-range=10.101.0.0/29"))
	// 6 usable addresses, one of them the kubernetes Service's.
	waitKubernetesService(ctx, t, s.Client)
	for i := range 5 {
		createService(ctx, t, s.Client, clusterIPService(fmt.Sprintf("fill-%d", i)))
	}
	_, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, clusterIPService("overflow"), metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "range is full") {
		t.Fatalf("creating a Service in a full range = %v, want a range-is-full error", err)
	}

	extra := &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "extra"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.102.0.0/28"}}}
	if _, err := s.Client.NetworkingV1().ServiceCIDRs().Create(ctx, extra, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var svc *corev1.Service
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		svc, err = s.Client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, clusterIPService("overflow"), metav1.CreateOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("no Service could be created after adding ServiceCIDR %s", extra.Spec.CIDRs[0])
	}
	if !mustPrefix(t, "10.102.0.0/28").Contains(mustAddr(t, svc.Spec.ClusterIP)) {
		t.Errorf("Service got %s, want an address of the new ServiceCIDR 10.102.0.0/28", svc.Spec.ClusterIP)
	}
	waitIPAddress(ctx, t, s.Client, svc.Spec.ClusterIP, svc)
}

// TestRePOSTExistingServiceLeavesNoIPAddress re-creates an existing Service:
// the request fails with AlreadyExists and no IPAddress is created for it, not
// even for a moment (#132321). A sentinel Service created afterwards proves the
// watch had its chance: every IPAddress event up to the sentinel's is checked.
// (The kubernetes Service's IPAddress may show up among them on a slow start.)
func TestRePOSTExistingServiceLeavesNoIPAddress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := framework.StartAPIServer(t)
	web := createService(ctx, t, s.Client, clusterIPService("web"))

	list, err := s.Client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Client.NetworkingV1().IPAddresses().Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	for range 3 {
		_, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, clusterIPService("web"), metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			t.Fatalf("re-POST = %v, want AlreadyExists", err)
		}
	}
	sentinel := createService(ctx, t, s.Client, clusterIPService("sentinel"))
	timeout := time.After(pollTimeout)
	for {
		select {
		case ev := <-w.ResultChan():
			ipa, _ := ev.Object.(*networkingv1.IPAddress)
			if ipa == nil {
				t.Fatalf("IPAddress watch sent %s %T", ev.Type, ev.Object)
			}
			if ref := ipa.Spec.ParentRef; ref != nil && ref.Resource == "services" && ref.Namespace == web.Namespace && ref.Name == web.Name {
				t.Errorf("re-POSTing Service %s/%s: IPAddress event %s %s (Service has %s)", web.Namespace, web.Name, ev.Type, ipa.Name, web.Spec.ClusterIP)
			}
			if ev.Type == watch.Added && ipa.Name == sentinel.Spec.ClusterIP {
				return
			}
		case <-timeout:
			t.Fatalf("no IPAddress event for the sentinel Service's %s within %s", sentinel.Spec.ClusterIP, pollTimeout)
		}
	}
}

// TestDeleteThenCreateService deletes Services and creates them again at once,
// from several workers. A delete returns before the watch cache has seen it,
// so the re-POST check (#132321) must not answer AlreadyExists then; every
// Service that stands at the end has its IPAddress, and no other IPAddress is left.
// A check that trusts the watch cache alone failed about 9 of 2000 cycles, so the
// test runs 2000: at 400 it would pass about one run in six with that defect.
func TestDeleteThenCreateService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := framework.StartAPIServer(t)
	const workers, cycles = 10, 200
	services := s.Client.CoreV1().Services(metav1.NamespaceDefault)
	errs := make(chan error, workers*cycles)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc := clusterIPService(fmt.Sprintf("cycle-%d", w))
			if _, err := services.Create(ctx, svc, metav1.CreateOptions{}); err != nil {
				errs <- fmt.Errorf("creating %s: %w", svc.Name, err)
				return
			}
			for i := range cycles {
				if err := services.Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil {
					errs <- fmt.Errorf("cycle %d: deleting %s: %w", i, svc.Name, err)
					return
				}
				if _, err := services.Create(ctx, svc, metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("cycle %d: creating %s right after deleting it: %w", i, svc.Name, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	list, err := services.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owned := map[string]bool{}
	for _, svc := range list.Items {
		owned[svc.Spec.ClusterIP] = true
		waitIPAddress(ctx, t, s.Client, svc.Spec.ClusterIP, &svc)
	}
	ips, err := s.Client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ip := range ips.Items {
		if !owned[ip.Name] {
			t.Errorf("IPAddress %s is left with no Service (parentRef %+v)", ip.Name, ip.Spec.ParentRef)
		}
	}
}

// TestSkewBitmapAndDualWrite runs a netfork apiserver with the multi-CIDR
// allocator off (bitmap only, as before KEP-1880) beside one with it on and
// dual-writing, on one etcd, creates 1000 Services split across them
// concurrently, and checks no ClusterIP or NodePort went to two Services and
// that the bitmap holds every ClusterIP, so the bitmap-only apiserver never
// hands out one the other gave.
func TestSkewBitmapAndDualWrite(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	flags := framework.WithFlags("--service-cluster-ip-range=10.103.0.0/20", "--service-node-port-range=30000-32767")
	servers := []*framework.APIServer{
		framework.StartNetforkProcess(t, allocatorGates(false, true), flags, framework.WithEtcdPrefix(prefix)),
		framework.StartAPIServer(t, allocatorGates(true, false), flags, framework.WithEtcdPrefix(prefix)),
	}
	const total = 1000
	createConcurrently(ctx, t, servers, total)
	assertUniqueAllocations(ctx, t, servers[1], total)

	list, err := servers[1].Client.CoreV1().Services(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bitmap := readRangeAllocation(ctx, t, etcdClient(t), prefix+"/ranges/serviceips")
	for _, svc := range list.Items {
		if !bitSet(t, bitmap, svc.Spec.ClusterIP) {
			t.Errorf("ClusterIP %s of %s is missing from the legacy bitmap", svc.Spec.ClusterIP, svc.Name)
		}
	}
}

// TestHandMadeIPAddress checks that an IPAddress made by hand can never give a
// ClusterIP to two Services: a name that is not a canonical IP is rejected,
// one for a Service's address already exists, and a Service cannot take the
// address of a hand-made one.
func TestHandMadeIPAddress(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, framework.WithEtcdPrefix(framework.NewEtcdPrefix(t)))
	handMade := func(name string) *networkingv1.IPAddress {
		return &networkingv1.IPAddress{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: "ghost"}},
		}
	}
	for _, name := range []string{"10.96.05.5", "fd00:10:96:0::5", "10.96.5.5/32", "not-an-ip"} {
		_, err := s.Client.NetworkingV1().IPAddresses().Create(ctx, handMade(name), metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) {
			t.Errorf("creating IPAddress %q = %v, want Invalid", name, err)
		}
	}

	svc := createService(ctx, t, s.Client, clusterIPService("web"))
	if _, err := s.Client.NetworkingV1().IPAddresses().Create(ctx, handMade(svc.Spec.ClusterIP), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("creating an IPAddress for Service web's %s = %v, want AlreadyExists", svc.Spec.ClusterIP, err)
	}

	if _, err := s.Client.NetworkingV1().IPAddresses().Create(ctx, handMade("10.96.5.5"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	taker := clusterIPService("taker")
	taker.Spec.ClusterIP = "10.96.5.5"
	_, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, taker, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "already allocated") {
		t.Errorf("creating a Service with a hand-made IPAddress's address = %v, want Invalid: already allocated", err)
	}
}

// TestServiceCIDRTooLargeToIndex checks the ServiceCIDRs netfork refuses beyond
// upstream's validation: a /0 of either family and IPv6 shorter than /64.
func TestServiceCIDRTooLargeToIndex(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, framework.WithEtcdPrefix(framework.NewEtcdPrefix(t)))
	before, err := s.Client.NetworkingV1().ServiceCIDRs().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cidrs := range [][]string{{"0.0.0.0/0"}, {"::/0"}, {"fd00:48::/48"}, {"10.200.0.0/16", "fd00:48::/48"}} {
		sc := &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "too-large"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: cidrs}}
		_, err := s.Client.NetworkingV1().ServiceCIDRs().Create(ctx, sc, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.cidrs") {
			t.Errorf("creating ServiceCIDR %v = %v, want Invalid naming spec.cidrs", cidrs, err)
		}
	}
	after, err := s.Client.NetworkingV1().ServiceCIDRs().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Items) != len(before.Items) {
		t.Errorf("%d ServiceCIDRs after the refused creates, want %d", len(after.Items), len(before.Items))
	}
}

// TestMigrateDefaultServiceCIDR follows KEP-1880's procedure to move a cluster
// to a new Service range: add a ServiceCIDR for the new range, restart the
// apiserver with it in --service-cluster-ip-range, delete the old default
// ServiceCIDR and the kubernetes Service; the apiserver recreates both from the
// new flags, and the kubernetes Service gets the new range's first address.
func TestMigrateDefaultServiceCIDR(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	old := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix), withTestGracePeriod,
		framework.WithFlags("--service-cluster-ip-range=10.110.0.0/24"))
	waitKubernetesService(ctx, t, old.Client)
	newRange := &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "new-range"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"192.168.110.0/24"}}}
	if _, err := old.Client.NetworkingV1().ServiceCIDRs().Create(ctx, newRange, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	old.Stop()

	s := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix), withTestGracePeriod,
		framework.WithFlags("--service-cluster-ip-range=192.168.110.0/24"))
	if err := s.Client.NetworkingV1().ServiceCIDRs().Delete(ctx, defaultServiceCIDRName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, "kubernetes", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*pollTimeout, true, func(ctx context.Context) (bool, error) {
		sc, err := s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, defaultServiceCIDRName, metav1.GetOptions{})
		if err != nil || sc.DeletionTimestamp != nil || len(sc.Spec.CIDRs) != 1 || sc.Spec.CIDRs[0] != "192.168.110.0/24" {
			return false, nil
		}
		svc, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil && svc.Spec.ClusterIP == "192.168.110.1", nil
	})
	if err != nil {
		var cidrs, ips []string
		if sc, err := s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, defaultServiceCIDRName, metav1.GetOptions{}); err == nil {
			cidrs = sc.Spec.CIDRs
		}
		if svc, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{}); err == nil {
			ips = svc.Spec.ClusterIPs
		}
		t.Fatalf("after the migration the ServiceCIDR kubernetes has %v and the Service kubernetes %v; want [192.168.110.0/24] and [192.168.110.1]", cidrs, ips)
	}
	svc, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitIPAddress(ctx, t, s.Client, svc.Spec.ClusterIP, svc)
}
