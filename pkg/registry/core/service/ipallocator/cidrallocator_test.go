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

package ipallocator

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/component-base/metrics/testutil"
	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"

	"github.com/netfork/netfork/pkg/registry/internal/jointwrite"
)

func TestCIDRAllocatorCommitWritesUpstreamIPAddress(t *testing.T) {
	f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")})
	addr := f.allocateNext(t, "web")

	got, err := f.client.NetworkingV1().IPAddresses().Get(context.Background(), addr.String(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("IPAddress %s not created: %v", addr, err)
	}
	want := ipAddressFor(addr.String(), "web")
	if got.Labels[networkingv1.LabelManagedBy] != upstreamipallocator.ControllerName ||
		got.Labels[networkingv1.LabelIPAddressFamily] != "IPv4" ||
		*got.Spec.ParentRef != *want.Spec.ParentRef {
		t.Errorf("IPAddress = labels %v parent %+v, want upstream's labels and parent %+v", got.Labels, got.Spec.ParentRef, want.Spec.ParentRef)
	}
	if !netip.MustParsePrefix("10.0.0.0/24").Contains(addr) || addr == netip.MustParseAddr("10.0.0.0") || addr == netip.MustParseAddr("10.0.0.255") {
		t.Errorf("allocated %s, not a usable address of 10.0.0.0/24", addr)
	}
}

func TestCIDRAllocatorPrefersUpperBand(t *testing.T) {
	// A /24 has a 16-address static band: 10.0.0.1-10.0.0.16.
	f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")})
	lowBand := netip.MustParseAddr("10.0.0.16")
	for i := range 254 - 16 {
		if a := f.allocateNext(t, svcName(i)); !lowBand.Less(a) {
			t.Fatalf("allocation %d got %s from the static band while the dynamic band has room", i, a)
		}
	}
	if a := f.allocateNext(t, "last"); lowBand.Less(a) {
		t.Fatalf("with the dynamic band full, got %s, want the static band", a)
	}
}

func TestCIDRAllocatorMovesToNewServiceCIDRWhenFull(t *testing.T) {
	// Upstream #131866: a ServiceCIDR added after the first filled up must be used.
	f := newCIDRFixture(t, "10.0.0.0/29", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/29")})
	for i := range 6 {
		f.allocateNext(t, svcName(i))
	}
	if _, err := f.alloc.AllocateNext(); !errors.Is(err, ErrFull) {
		t.Fatalf("AllocateNext on a full /29 = %v, want ErrFull", err)
	}
	if _, err := f.client.NetworkingV1().ServiceCIDRs().Create(context.Background(), serviceCIDR("extra", 2, "10.1.0.0/29"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new ServiceCIDR to be used", func() bool {
		ip, err := f.alloc.AllocateNext()
		if err != nil {
			return false
		}
		if !netip.MustParsePrefix("10.1.0.0/29").Contains(netip.MustParseAddr(ip.String())) {
			t.Fatalf("got %s, want an address of the new ServiceCIDR", ip)
		}
		return true
	})
}

func TestCIDRAllocatorSkipsTerminatingServiceCIDR(t *testing.T) {
	deleting := serviceCIDR("old", 1, "10.0.0.0/24")
	deleting.DeletionTimestamp = &metav1.Time{}
	deleting.Finalizers = []string{"networking.k8s.io/service-cidr-finalizer"}
	f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{deleting, serviceCIDR("new", 2, "10.2.0.0/24")})
	for i := range 50 {
		if a := f.allocateNext(t, svcName(i)); !netip.MustParsePrefix("10.2.0.0/24").Contains(a) {
			t.Fatalf("got %s from a terminating ServiceCIDR", a)
		}
	}
	if err := f.alloc.Allocate(netIP("10.0.0.10")); !errors.Is(err, ErrMismatchedNetwork) {
		t.Errorf("static allocation in a terminating ServiceCIDR = %v, want ErrMismatchedNetwork", err)
	}
}

func TestCIDRAllocatorOverlappingScaleUp(t *testing.T) {
	f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{
		serviceCIDR("kubernetes", 1, "10.0.0.0/24"),
		ipAddressFor("10.0.0.200", "existing"),
	})
	if err := f.alloc.Allocate(netIP("10.0.0.200")); !errors.Is(err, ErrAllocated) {
		t.Fatalf("Allocate of an existing IPAddress = %v, want ErrAllocated", err)
	}
	if _, err := f.client.NetworkingV1().ServiceCIDRs().Create(context.Background(), serviceCIDR("bigger", 2, "10.0.0.0/23"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// 10.0.0.255 is the /24's broadcast address but a host of the /23.
	waitFor(t, "the /23 to be indexed", func() bool { return f.alloc.Allocate(netIP("10.0.1.7")) == nil })
	if err := f.alloc.Allocate(netIP("10.0.0.255")); err != nil {
		t.Errorf("Allocate(10.0.0.255) inside the /23 = %v", err)
	}
	if err := f.alloc.Allocate(netIP("10.0.0.200")); !errors.Is(err, ErrAllocated) {
		t.Errorf("Allocate of an existing IPAddress after the scale-up = %v, want ErrAllocated", err)
	}
}

func TestCIDRAllocatorStaticErrors(t *testing.T) {
	f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")})
	tests := []struct {
		ip   string
		want func(error) bool
	}{
		{"10.9.0.1", func(err error) bool { return errors.Is(err, ErrMismatchedNetwork) }},
		// network and broadcast addresses: upstream's MetaAllocator's words, not its bitmap's
		{"10.0.0.0", func(err error) bool { return errors.Is(err, ErrMismatchedNetwork) }},
		{"10.0.0.255", func(err error) bool { return errors.Is(err, ErrMismatchedNetwork) }},
		{"fd00::1", func(err error) bool { return errors.Is(err, ErrMismatchedNetwork) }},
	}
	for _, tc := range tests {
		t.Run(tc.ip, func(t *testing.T) {
			if err := f.alloc.Allocate(netIP(tc.ip)); !tc.want(err) {
				t.Errorf("Allocate(%s) = %v", tc.ip, err)
			}
		})
	}
	if err := f.alloc.Allocate(netIP("10.0.0.10")); err != nil {
		t.Fatal(err)
	}
	if err := f.alloc.Allocate(netIP("10.0.0.10")); !errors.Is(err, ErrAllocated) {
		t.Errorf("second Allocate of a reserved address = %v, want ErrAllocated", err)
	}
}

func TestCIDRAllocatorCollisionKeepsOthersIPAddress(t *testing.T) {
	f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")})
	if err := f.alloc.Allocate(netIP("10.0.0.20")); err != nil {
		t.Fatal(err)
	}
	// Another apiserver created it; this one's informer has not seen it yet.
	f.failIPAddressCreates(apierrors.NewAlreadyExists(schema.GroupResource{Group: "networking.k8s.io", Resource: "ipaddresses"}, "10.0.0.20"))
	err := f.alloc.Commit(context.Background(), service("late", "10.0.0.20"), []string{"10.0.0.20"})
	var collision *CollisionError
	if !errors.As(err, &collision) || !collision.Static || collision.IP != "10.0.0.20" {
		t.Fatalf("Commit = %v, want a static CollisionError for 10.0.0.20", err)
	}
	deletes := 0
	f.client.PrependReactor("delete", "ipaddresses", func(k8stesting.Action) (bool, runtime.Object, error) {
		deletes++
		return false, nil, nil
	})
	if err := f.alloc.Release(netIP("10.0.0.20")); err != nil {
		t.Fatal(err)
	}
	if deletes != 0 {
		t.Errorf("Release after a lost race deleted the winner's IPAddress")
	}
	if !f.alloc.Has(netIP("10.0.0.20")) {
		t.Errorf("the address another apiserver holds was freed")
	}
}

func TestCIDRAllocatorCommitErrorNamesTheCause(t *testing.T) {
	// Upstream #135333: only AlreadyExists is a collision; anything else fails with its reason.
	f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")})
	ip, err := f.alloc.AllocateNext()
	if err != nil {
		t.Fatal(err)
	}
	refused := apierrors.NewForbidden(schema.GroupResource{Group: "networking.k8s.io", Resource: "ipaddresses"}, ip.String(), errors.New("webhook says no"))
	f.failIPAddressCreates(refused)
	err = f.alloc.Commit(context.Background(), service("web", ip.String()), []string{ip.String()})
	var (
		collision *CollisionError
		commit    *CommitError
	)
	if err == nil || errors.As(err, &collision) || !strings.Contains(err.Error(), "webhook says no") || !strings.Contains(err.Error(), "default/web") {
		t.Fatalf("Commit = %v, want an error naming the Service and the cause", err)
	}
	// The Service storage answers with upstream's words for the cause as it came.
	if !errors.As(err, &commit) || commit.IP != ip.String() || commit.Err != refused {
		t.Fatalf("Commit = %#v, want a CommitError of %s with the create's own error", err, ip)
	}
	if err := f.alloc.Release(ip); err != nil {
		t.Fatal(err)
	}
	if f.alloc.Has(ip) {
		t.Errorf("a failed commit left %s used after Release", ip)
	}
}

func TestCIDRAllocatorReleaseDeletesIPAddress(t *testing.T) {
	f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")})
	addr := f.allocateNext(t, "web")
	// The informer reports the create before the Release, so its add event
	// cannot come after it: a late add event marks the address used again
	// until the delete event follows, which -race's slower scheduling made
	// this test hit (a Release of an object the informer has not reported yet
	// is not what this test is about).
	waitFor(t, "the informer to report IPAddress "+addr.String(), func() bool {
		_, err := f.alloc.ipAddresses.Get(addr.String())
		return err == nil
	})
	if err := f.alloc.Release(netIP(addr.String())); err != nil {
		t.Fatal(err)
	}
	if f.ipAddressExists(addr.String()) {
		t.Errorf("IPAddress %s still exists after Release", addr)
	}
	if f.alloc.Has(netIP(addr.String())) {
		t.Errorf("%s still used after Release", addr)
	}
	// An uncommitted reservation is only dropped.
	ip, err := f.alloc.AllocateNext()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.alloc.Release(ip); err != nil || f.alloc.Has(ip) {
		t.Errorf("Release of a reservation = %v, still used: %t", err, f.alloc.Has(ip))
	}
}

func TestCIDRAllocatorIPv6Slash64StaysInRange(t *testing.T) {
	// Upstream #138374 / #134193: a /64 must never yield an address outside it.
	f := newCIDRFixture(t, "2001:db8:1:2::/64", []runtime.Object{serviceCIDR("kubernetes", 1, "2001:db8:1:2::/64")})
	p := netip.MustParsePrefix("2001:db8:1:2::/64")
	for i := range 300 {
		if a := f.allocateNext(t, svcName(i)); !p.Contains(a) || a == p.Addr() {
			t.Fatalf("allocation %d = %s, outside %s", i, a, p)
		}
	}
}

// TestCIDRAllocatorHoldsForceDeletedIPAddress deletes the IPAddress of a
// Service's ClusterIP by hand: the address stays used until the Service lets
// it go (KEP-1880), also when the Service holds it in the form clusters before
// 1.20 stored (leading zeros), which only the shared ClusterIP index reads.
func TestCIDRAllocatorHoldsForceDeletedIPAddress(t *testing.T) {
	for _, stored := range []string{"10.0.0.42", "010.000.000.042"} {
		t.Run(stored, func(t *testing.T) {
			f := newCIDRFixture(t, "10.0.0.0/26", []runtime.Object{
				serviceCIDR("kubernetes", 1, "10.0.0.0/26"),
				serviceObject("default", "web", stored),
				ipAddressFor("10.0.0.42", "web"),
			})
			if err := f.client.NetworkingV1().IPAddresses().Delete(context.Background(), "10.0.0.42", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the delete to be seen", func() bool {
				f.alloc.mu.Lock()
				defer f.alloc.mu.Unlock()
				return f.alloc.idx.state(netip.MustParseAddr("10.0.0.42")) == stateHeld
			})
			if err := f.alloc.Allocate(netIP("10.0.0.42")); !errors.Is(err, ErrAllocated) {
				t.Fatalf("Allocate of an address a Service still has = %v, want ErrAllocated", err)
			}
			if err := f.client.CoreV1().Services("default").Delete(context.Background(), "web", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the address to be freed once the Service is gone", func() bool { return !f.alloc.Has(netIP("10.0.0.42")) })
		})
	}
}

func TestCIDRAllocatorDualWrite(t *testing.T) {
	t.Run("dynamic picks come from the bitmap and are kept in it", func(t *testing.T) {
		bitmap := newTestRange(t, "10.0.0.0/24")
		f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")}, withBitmap(bitmap))
		for i := range 20 {
			a := f.allocateNext(t, svcName(i))
			if !bitmap.Has(netIP(a.String())) {
				t.Fatalf("%s allocated without its bitmap bit", a)
			}
		}
		if bitmap.Used() != 20 {
			t.Errorf("bitmap has %d bits, want 20", bitmap.Used())
		}
	})
	t.Run("a bit set by a bitmap-only apiserver is never handed out", func(t *testing.T) {
		bitmap := newTestRange(t, "10.0.0.0/28")
		// 14 usable addresses; a bitmap-only apiserver took all but one, without IPAddresses.
		for _, s := range ipsOf("10.0.0.0/28", 13) {
			if err := bitmap.Allocate(netIP(s)); err != nil {
				t.Fatal(err)
			}
		}
		f := newCIDRFixture(t, "10.0.0.0/28", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/28")}, withBitmap(bitmap))
		if a := f.allocateNext(t, "only"); a != netip.MustParseAddr("10.0.0.14") {
			t.Fatalf("got %s, want the one address free in the bitmap", a)
		}
		if _, err := f.alloc.AllocateNext(); !errors.Is(err, ErrFull) {
			t.Fatalf("AllocateNext = %v, want ErrFull: every other address is the bitmap-only apiserver's", err)
		}
	})
	t.Run("IPv6 past the bitmap's 2^16 addresses is IPAddress-only", func(t *testing.T) {
		// Upstream #129797: a /108 has 2^20 addresses, the legacy bitmap 2^16.
		bitmap := newTestRange(t, "fd00:10:96::/108")
		f := newCIDRFixture(t, "fd00:10:96::/108", []runtime.Object{serviceCIDR("kubernetes", 1, "fd00:10:96::/108")}, withBitmap(bitmap))
		beyond := "fd00:10:96::f:0"
		if err := f.alloc.Allocate(netIP(beyond)); err != nil {
			t.Fatalf("Allocate(%s) = %v", beyond, err)
		}
		if err := f.alloc.Commit(context.Background(), service("far", beyond), []string{beyond}); err != nil {
			t.Fatal(err)
		}
		if !f.ipAddressExists(beyond) || bitmap.Used() != 0 {
			t.Errorf("IPAddress exists: %t, bitmap bits: %d; want the IPAddress and no bit", f.ipAddressExists(beyond), bitmap.Used())
		}
	})
	t.Run("a stale bit does not refuse a static IP", func(t *testing.T) {
		// Upstream #136475: free as an IPAddress, set in the bitmap, no Service has it.
		bitmap := newTestRange(t, "10.0.0.0/24")
		if err := bitmap.Allocate(netIP("10.0.0.10")); err != nil {
			t.Fatal(err)
		}
		f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")}, withBitmap(bitmap))
		if err := f.alloc.Allocate(netIP("10.0.0.10")); err != nil {
			t.Fatalf("Allocate of a stale bitmap address = %v, want it repaired", err)
		}
	})
	t.Run("a bit a Service holds refuses the static IP", func(t *testing.T) {
		bitmap := newTestRange(t, "10.0.0.0/24")
		if err := bitmap.Allocate(netIP("10.0.0.11")); err != nil {
			t.Fatal(err)
		}
		f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{
			serviceCIDR("kubernetes", 1, "10.0.0.0/24"),
			serviceObject("default", "old-apiserver", "10.0.0.11"),
		}, withBitmap(bitmap))
		if err := f.alloc.Allocate(netIP("10.0.0.11")); !errors.Is(err, ErrAllocated) {
			t.Fatalf("Allocate of an address a bitmap-only apiserver gave a Service = %v, want ErrAllocated", err)
		}
		if f.alloc.Has(netIP("10.0.0.11")) && f.alloc.idx.state(netip.MustParseAddr("10.0.0.11")) == stateReserved {
			t.Errorf("the refused reservation was left behind")
		}
	})
	t.Run("release clears the bit", func(t *testing.T) {
		bitmap := newTestRange(t, "10.0.0.0/24")
		f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")}, withBitmap(bitmap))
		a := f.allocateNext(t, "web")
		if err := f.alloc.Release(netIP(a.String())); err != nil {
			t.Fatal(err)
		}
		if bitmap.Has(netIP(a.String())) {
			t.Errorf("bit of released %s still set", a)
		}
	})
}

func TestCIDRAllocatorMetricsPerServiceCIDR(t *testing.T) {
	// Upstream #140613: available_ips must be there for every ServiceCIDR, also right after a restart.
	f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{
		serviceCIDR("kubernetes", 1, "10.0.0.0/24"),
		serviceCIDR("extra", 2, "10.5.0.0/28"),
		ipAddressFor("10.5.0.3", "a"),
	})
	f.alloc.EnableMetrics()
	waitFor(t, "gauges of both ServiceCIDRs", func() bool {
		avail, err1 := testutil.GetGaugeMetricValue(clusterIPAvailable.WithLabelValues("10.5.0.0/28"))
		used, err2 := testutil.GetGaugeMetricValue(clusterIPAllocated.WithLabelValues("10.5.0.0/28"))
		def, err3 := testutil.GetGaugeMetricValue(clusterIPAvailable.WithLabelValues("10.0.0.0/24"))
		return err1 == nil && err2 == nil && err3 == nil && avail == 13 && used == 1 && def == 254
	})
	f.allocateNext(t, "web")
	if v, _ := testutil.GetGaugeMetricValue(clusterIPAvailable.WithLabelValues("10.0.0.0/24")); v != 253 {
		t.Errorf("available_ips{cidr=10.0.0.0/24} = %v after one allocation, want 253", v)
	}
}

func TestCIDRAllocatorIPv6Slash64LastAddress(t *testing.T) {
	f := newCIDRFixture(t, "fd00:64::/64", []runtime.Object{serviceCIDR("kubernetes", 1, "fd00:64::/64")})
	for _, ip := range []string{"fd00:64::ffff:ffff:ffff:ffff", "fd00:64::1", "fd00:64::8000:0:0:0"} {
		if err := f.alloc.Allocate(netIP(ip)); err != nil {
			t.Errorf("Allocate(%s) = %v, want it allowed in the /64", ip, err)
		}
	}
	if err := f.alloc.Allocate(netIP("fd00:64::")); !errors.Is(err, ErrMismatchedNetwork) {
		t.Errorf("Allocate of the /64's subnet-router address = %v, want upstream's ErrMismatchedNetwork", err)
	}
}

// TestCIDRAllocatorLateAddAfterRelease: the informer reports the create of a
// Commit only after Release has deleted the object. That late event must not
// mark the address used again (a Service re-created with the same static
// ClusterIP would be refused), while a new object for the address must.
func TestCIDRAllocatorLateAddAfterRelease(t *testing.T) {
	writer := fake.NewClientset()
	uids := 0
	writer.PrependReactor("create", "ipaddresses", func(action k8stesting.Action) (bool, runtime.Object, error) {
		obj := action.(k8stesting.CreateAction).GetObject().(*networkingv1.IPAddress)
		uids++
		obj.UID = types.UID(fmt.Sprintf("uid-%d", uids))
		return false, nil, nil
	})
	f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")},
		func(c *CIDRConfig) { c.Writer = writer.NetworkingV1().IPAddresses() })
	addr := f.allocateNext(t, "web")
	created, err := writer.NetworkingV1().IPAddresses().Get(context.Background(), addr.String(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.alloc.Release(netIP(addr.String())); err != nil {
		t.Fatal(err)
	}
	// the informer now reports the create it had not delivered yet
	if _, err := f.client.NetworkingV1().IPAddresses().Create(context.Background(), created, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the late add event", func() bool { _, err := f.alloc.ipAddresses.Get(addr.String()); return err == nil })
	if f.alloc.Has(netIP(addr.String())) {
		t.Errorf("%s used again after Release: the late add event of the released object re-marked it", addr)
	}
	// its delete event ends the guard; an object created since for the address counts
	if err := f.client.NetworkingV1().IPAddresses().Delete(context.Background(), addr.String(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the delete event", func() bool { _, err := f.alloc.ipAddresses.Get(addr.String()); return err != nil })
	other := created.DeepCopy()
	other.UID, other.ResourceVersion = "uid-other", ""
	if _, err := f.client.NetworkingV1().IPAddresses().Create(context.Background(), other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "another object for the address to count", func() bool { return f.alloc.Has(netIP(addr.String())) })
}

// TestCIDRAllocatorRefusedReleaseIsLogged checks a release whose IPAddress
// delete is refused (a policy, a webhook): upstream's allocator logs "error
// releasing ip" at info level and answers nil; the address stays used while
// its IPAddress stands.
func TestCIDRAllocatorRefusedReleaseIsLogged(t *testing.T) {
	logs := captureLogs(t)
	f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")})
	addr := f.allocateNext(t, "web")
	refused := apierrors.NewForbidden(schema.GroupResource{Group: "networking.k8s.io", Resource: "ipaddresses"}, addr.String(), errors.New("policy says no"))
	f.client.PrependReactor("delete", "ipaddresses", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, refused
	})
	if err := f.alloc.Release(netIP(addr.String())); err != nil {
		t.Fatalf("Release = %v, want nil as upstream's", err)
	}
	want := fmt.Sprintf("error releasing ip %s : %v", addr, refused)
	if lines := logs.lines(want); len(lines) != 1 || !strings.HasPrefix(lines[0], "I") {
		t.Errorf("logged %q, want one info line %q", logs.lines("error releasing ip"), want)
	}
	if !f.ipAddressExists(addr.String()) || !f.alloc.Has(netIP(addr.String())) {
		t.Errorf("after a refused release, IPAddress exists: %t, address used: %t; want both", f.ipAddressExists(addr.String()), f.alloc.Has(netIP(addr.String())))
	}
}

// refusingPreparer is an IPAddressWriter whose deletes prepared for a Service's
// transaction are refused, as admission would refuse them; it prepares no creates.
type refusingPreparer struct {
	IPAddressWriter
	refusal  error
	prepared int
}

func (r *refusingPreparer) Prepare(context.Context, *jointwrite.Slot, *networkingv1.IPAddress) (*networkingv1.IPAddress, *jointwrite.Prepared, error) {
	return nil, nil, jointwrite.ErrCannotPrepare
}

func (r *refusingPreparer) PrepareDelete(context.Context, *jointwrite.Slot, string) (*jointwrite.Prepared, error) {
	r.prepared++
	return nil, r.refusal
}

// TestCIDRAllocatorRefusedJointDeleteAdmittedOnce checks that an IPAddress
// delete admission refused as the Service's delete transaction prepared it is
// not sent to admission again when the Service storage releases the address,
// as upstream sends one delete: the release logs that refusal in upstream's
// words. A later release asks again.
func TestCIDRAllocatorRefusedJointDeleteAdmittedOnce(t *testing.T) {
	logs := captureLogs(t)
	preparer := &refusingPreparer{}
	f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")}, func(c *CIDRConfig) {
		preparer.IPAddressWriter = c.Writer
		c.Writer = preparer
	})
	addr := f.allocateNext(t, "web")
	waitFor(t, "the informer to report IPAddress "+addr.String(), func() bool {
		_, err := f.alloc.ipAddresses.Get(addr.String())
		return err == nil
	})
	preparer.refusal = apierrors.NewForbidden(schema.GroupResource{Group: "networking.k8s.io", Resource: "ipaddresses"}, addr.String(), errors.New("policy says no"))
	deletes := 0
	f.client.PrependReactor("delete", "ipaddresses", func(k8stesting.Action) (bool, runtime.Object, error) {
		deletes++
		return false, nil, nil
	})

	if got := f.alloc.PrepareRelease(context.Background(), nil, service("web", addr.String())); len(got) != 0 || preparer.prepared != 1 {
		t.Fatalf("PrepareRelease = %d deletes after %d prepared, want none after 1", len(got), preparer.prepared)
	}
	if err := f.alloc.Release(netIP(addr.String())); err != nil {
		t.Fatalf("Release = %v, want nil as upstream's", err)
	}
	want := fmt.Sprintf("error releasing ip %s : %v", addr, preparer.refusal)
	if deletes != 0 || len(logs.lines(want)) != 1 {
		t.Errorf("the release sent %d deletes and logged %q; want none sent and %q logged once", deletes, logs.lines("error releasing ip"), want)
	}
	if !f.ipAddressExists(addr.String()) || !f.alloc.Has(netIP(addr.String())) {
		t.Errorf("after a refused release, IPAddress exists: %t, address used: %t; want both", f.ipAddressExists(addr.String()), f.alloc.Has(netIP(addr.String())))
	}

	if err := f.alloc.Release(netIP(addr.String())); err != nil {
		t.Fatal(err)
	}
	if deletes != 1 || f.ipAddressExists(addr.String()) {
		t.Errorf("a later release sent %d deletes, IPAddress exists: %t; want it asked and deleted", deletes, f.ipAddressExists(addr.String()))
	}
}

// TestCIDRAllocatorRefusedCreateIsLogged checks that a refused IPAddress
// create of an address the allocator chose is logged in upstream's words at
// info, and that of an address the Service asked for is not, as upstream's
// allocator logs only the first.
func TestCIDRAllocatorRefusedCreateIsLogged(t *testing.T) {
	for _, tc := range []struct {
		name     string
		allocate func(*cidrFixture) (net.IP, error)
		wantLogs int
	}{
		{name: "dynamic", allocate: func(f *cidrFixture) (net.IP, error) { return f.alloc.AllocateNext() }, wantLogs: 1},
		{name: "static", allocate: func(f *cidrFixture) (net.IP, error) { return netIP("10.0.0.7"), f.alloc.Allocate(netIP("10.0.0.7")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := captureLogs(t)
			f := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")})
			ip, err := tc.allocate(f)
			if err != nil {
				t.Fatalf("allocating: %v", err)
			}
			refused := apierrors.NewForbidden(schema.GroupResource{Group: "networking.k8s.io", Resource: "ipaddresses"}, ip.String(), errors.New("policy says no"))
			f.failIPAddressCreates(refused)
			var commit *CommitError
			if err := f.alloc.Commit(context.Background(), service("web", ip.String()), []string{ip.String()}); !errors.As(err, &commit) {
				t.Fatalf("Commit = %v, want a CommitError", err)
			}
			want := fmt.Sprintf("can not create IPAddress %s: %v", ip, refused)
			lines := logs.lines("can not create IPAddress")
			if len(lines) != tc.wantLogs || (tc.wantLogs == 1 && (!strings.HasPrefix(lines[0], "I") || !strings.Contains(lines[0], want))) {
				t.Errorf("logged %q, want %d info line(s) %q", lines, tc.wantLogs, want)
			}
		})
	}
}

// TestCIDRAllocatorRefusedCreateErrorsCountAsUpstreams checks the allocation
// errors a refused IPAddress create counts: two for an address the allocator
// chose, one for an address the Service asked for, as upstream's allocator
// counts them (createIPAddress counts each failed create, allocateNextService
// counts the dynamic allocation it then gives up once more).
func TestCIDRAllocatorRefusedCreateErrorsCountAsUpstreams(t *testing.T) {
	for _, tc := range []struct {
		name, cidr, scope string
		allocate          func(*cidrFixture) (net.IP, error)
		want              float64
	}{
		{name: "dynamic", cidr: "10.77.0.0/28", scope: "dynamic", allocate: func(f *cidrFixture) (net.IP, error) { return f.alloc.AllocateNext() }, want: 2},
		{name: "static", cidr: "10.78.0.0/28", scope: "static", allocate: func(f *cidrFixture) (net.IP, error) { return netIP("10.78.0.7"), f.alloc.Allocate(netIP("10.78.0.7")) }, want: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newCIDRFixture(t, tc.cidr, []runtime.Object{serviceCIDR("kubernetes", 1, tc.cidr)})
			f.alloc.EnableMetrics()
			ip, err := tc.allocate(f)
			if err != nil {
				t.Fatalf("allocating: %v", err)
			}
			// The allocation registered the collectors; it counted no error.
			errorsOf := clusterIPAllocationErrors.WithLabelValues(tc.cidr, tc.scope)
			before, err := testutil.GetCounterMetricValue(errorsOf)
			if err != nil {
				t.Fatal(err)
			}
			f.failIPAddressCreates(apierrors.NewForbidden(schema.GroupResource{Group: "networking.k8s.io", Resource: "ipaddresses"}, ip.String(), errors.New("policy says no")))
			if err := f.alloc.Commit(context.Background(), service("web", ip.String()), []string{ip.String()}); err == nil {
				t.Fatal("Commit succeeded, want the refusal")
			}
			after, err := testutil.GetCounterMetricValue(errorsOf)
			if err != nil {
				t.Fatal(err)
			}
			if got := after - before; got != tc.want {
				t.Errorf("allocation_errors_total{cidr=%q,scope=%q} = %v after a refused create, want upstream's %v", tc.cidr, tc.scope, got, tc.want)
			}
		})
	}
}

// countingPreparer is an IPAddressWriter that prepares every delete it is asked
// to and counts them, as the writer admits each one it prepares.
type countingPreparer struct {
	IPAddressWriter
	prepared *int
}

func (c countingPreparer) Prepare(context.Context, *jointwrite.Slot, *networkingv1.IPAddress) (*networkingv1.IPAddress, *jointwrite.Prepared, error) {
	return nil, nil, jointwrite.ErrCannotPrepare
}

func (c countingPreparer) PrepareDelete(_ context.Context, _ *jointwrite.Slot, name string) (*jointwrite.Prepared, error) {
	*c.prepared++
	return &jointwrite.Prepared{Key: "/ipaddresses/" + name, Revision: 1}, nil
}

// TestPrepareReleasePreparesOneDelete checks that a dual-stack Service's
// delete prepares, and so admits, one IPAddress delete: the one its
// transaction takes. The other is deleted, and admitted, on release only.
func TestPrepareReleasePreparesOneDelete(t *testing.T) {
	prepared := 0
	preparing := func(c *CIDRConfig) { c.Writer = countingPreparer{IPAddressWriter: c.Writer, prepared: &prepared} }
	v4 := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")}, preparing)
	v6 := newCIDRFixture(t, "fd00::/120", []runtime.Object{serviceCIDR("kubernetes", 1, "fd00::/120")}, preparing)
	a4, a6 := v4.allocateNext(t, "web"), v6.allocateNext(t, "web")
	for _, f := range []struct {
		fix  *cidrFixture
		addr netip.Addr
	}{{v4, a4}, {v6, a6}} {
		waitFor(t, "the informer to report IPAddress "+f.addr.String(), func() bool {
			_, err := f.fix.alloc.ipAddresses.Get(f.addr.String())
			return err == nil
		})
	}
	allocators := &Allocators{ByFamily: map[api.IPFamily]upstreamipallocator.Interface{api.IPv4Protocol: v4.alloc, api.IPv6Protocol: v6.alloc}}
	svc := service("web", a4.String(), a6.String())
	if got := allocators.PrepareRelease(context.Background(), nil, svc); len(got) != 1 || prepared != 1 {
		t.Errorf("PrepareRelease = %d deletes after %d prepared, want 1 after 1", len(got), prepared)
	}
}

// TestCommitServiceStopsAtFirstRefusal checks that a dual-stack Service's
// IPAddresses are committed in the order of its IP families and that a
// refused one ends the commit: admission sees the first family's address
// and never the other's. Upstream's allocator walks the families as a map
// (docs/differences.md); netfork's order must not vary, so the harness of
// test/fidelity sees the same refusal every run.
func TestCommitServiceStopsAtFirstRefusal(t *testing.T) {
	v4 := newCIDRFixture(t, "10.0.0.0/24", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/24")})
	v6 := newCIDRFixture(t, "fd00::/120", []runtime.Object{serviceCIDR("kubernetes", 1, "fd00::/120")})
	creates := map[api.IPFamily]int{}
	for family, f := range map[api.IPFamily]*cidrFixture{api.IPv4Protocol: v4, api.IPv6Protocol: v6} {
		f.client.PrependReactor("create", "ipaddresses", func(a k8stesting.Action) (bool, runtime.Object, error) {
			creates[family]++
			name := a.(k8stesting.CreateAction).GetObject().(*networkingv1.IPAddress).Name
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "networking.k8s.io", Resource: "ipaddresses"}, name, errors.New("policy says no"))
		})
	}
	allocators := &Allocators{ByFamily: map[api.IPFamily]upstreamipallocator.Interface{api.IPv4Protocol: v4.alloc, api.IPv6Protocol: v6.alloc}}
	for _, families := range [][]api.IPFamily{{api.IPv4Protocol, api.IPv6Protocol}, {api.IPv6Protocol, api.IPv4Protocol}} {
		// A walk of a two-entry map starts at the second entry one time in eight.
		for range 50 {
			clear(creates)
			svc := service("web", "10.0.0.5", "fd00::5")
			svc.Spec.IPFamilies = families
			var commit *CommitError
			if err := allocators.CommitService(context.Background(), svc, svc.Spec.ClusterIPs); !errors.As(err, &commit) {
				t.Fatalf("CommitService = %v, want a CommitError", err)
			}
			if len(creates) != 1 || creates[families[0]] != 1 {
				t.Fatalf("families %v: IPAddress creates by family %v, want one, of %s", families, creates, families[0])
			}
		}
	}
}
