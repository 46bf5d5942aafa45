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

package reconcilers

import (
	"context"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	netutils "k8s.io/utils/net"
)

const (
	ipA  = "198.18.0.1"
	ipB  = "198.18.0.2"
	ipC  = "198.18.0.3"
	ipD  = "198.18.0.4"
	ip6A = "fd4e:6574:666b:1::1"
	ip6B = "fd4e:6574:666b:1::2"
	ip6C = "fd4e:6574:666b:1::3"
)

// writes counts the create, update and delete calls the fake API has seen.
func writes(c *cluster) int {
	n := 0
	for _, a := range c.client.Actions() {
		switch a.GetVerb() {
		case "create", "update", "delete", "patch":
			n++
		}
	}
	return n
}

func endpointsAddresses(e *corev1.Endpoints) (ready, notReady []string) {
	for _, s := range e.Subsets {
		for _, a := range s.Addresses {
			ready = append(ready, a.IP)
		}
		for _, a := range s.NotReadyAddresses {
			notReady = append(notReady, a.IP)
		}
	}
	return ready, notReady
}

func wantSlice(t *testing.T, c *cluster, name string, addressType discoveryv1.AddressType, want map[string]string) {
	t.Helper()
	s := c.slice(name)
	if s == nil {
		t.Fatalf("EndpointSlice %s missing, want %v", name, want)
	}
	if s.AddressType != addressType {
		t.Errorf("EndpointSlice %s addressType %s, want %s", name, s.AddressType, addressType)
	}
	if s.Labels[discoveryv1.LabelServiceName] != ServiceName {
		t.Errorf("EndpointSlice %s labels %v, want %s=%s", name, s.Labels, discoveryv1.LabelServiceName, ServiceName)
	}
	if got := endpointsOf(t, s); !reflect.DeepEqual(got, want) {
		t.Errorf("EndpointSlice %s endpoints %v, want %v", name, got, want)
	}
}

// wantNoIPv6Slice fails if the IPv4-primary cluster has an IPv6 EndpointSlice
// for the kubernetes Service, i.e. it is advertised single-stack.
func wantNoIPv6Slice(t *testing.T, c *cluster) {
	t.Helper()
	name := SecondarySliceName(ServiceName, corev1.IPv6Protocol)
	if s := c.slice(name); s != nil {
		t.Errorf("EndpointSlice %s exists with %v, want none", name, endpointsOf(t, s))
	}
}

// TestReconcileMixedClusterWritesWhatUpstreamWrites runs upstream's own lease
// reconciler next to netfork's on one API: whichever starts, once both have
// run neither writes again, so the objects are exactly upstream's.
func TestReconcileMixedClusterWritesWhatUpstreamWrites(t *testing.T) {
	for _, netforkFirst := range []bool{false, true} {
		name := "upstream first"
		if netforkFirst {
			name = "netfork first"
		}
		t.Run(name, func(t *testing.T) {
			c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
			up, nf := c.upstream(), c.netfork(ipB, ip6B)
			round := func() Decision {
				var d Decision
				if netforkFirst {
					d = c.reconcile(nf)
				}
				if err := up.ReconcileEndpoints(ServiceName, netutils.ParseIPSloppy(ipA), httpsPorts, false); err != nil {
					t.Fatalf("upstream ReconcileEndpoints: %v", err)
				}
				if !netforkFirst {
					d = c.reconcile(nf)
				}
				return d
			}
			round()
			d := round()
			settled := writes(c)
			for range 3 {
				round()
			}
			if n := writes(c) - settled; n != 0 {
				t.Errorf("%d writes after both reconcilers settled, want none (they disagree): %v", n, c.client.Actions()[len(c.client.Actions())-n:])
			}
			if d.Shape != ShapeUpstream {
				t.Errorf("shape %s, want %s with an upstream apiserver live", d.Shape, ShapeUpstream)
			}
			if ready, notReady := endpointsAddresses(c.endpoints()); !reflect.DeepEqual(ready, []string{ipA, ipB}) || notReady != nil {
				t.Errorf("Endpoints ready %v not ready %v, want ready [%s %s]", ready, notReady, ipA, ipB)
			}
			wantSlice(t, c, ServiceName, discoveryv1.AddressTypeIPv4, map[string]string{ipA: "ready", ipB: "ready"})
			wantNoIPv6Slice(t, c)
		})
	}
}

// TestReconcileDualStack: three dual-stack netfork apiservers publish one
// slice per family; the Endpoints keep the primary family only.
func TestReconcileDualStack(t *testing.T) {
	c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
	apiservers := []*LeaseReconciler{c.netfork(ipA, ip6A), c.netfork(ipB, ip6B), c.netfork(ipC, ip6C)}
	var d Decision
	for range 2 {
		for _, r := range apiservers {
			d = c.reconcile(r)
		}
	}
	if !d.DualStack() {
		t.Fatalf("shape %s, want %s", d.Shape, ShapeDualStack)
	}
	wantSlice(t, c, ServiceName, discoveryv1.AddressTypeIPv4, map[string]string{ipA: "ready", ipB: "ready", ipC: "ready"})
	wantSlice(t, c, "kubernetes-ipv6", discoveryv1.AddressTypeIPv6, map[string]string{ip6A: "ready", ip6B: "ready", ip6C: "ready"})
	e := c.endpoints()
	if ready, _ := endpointsAddresses(e); !reflect.DeepEqual(ready, []string{ipA, ipB, ipC}) {
		t.Errorf("Endpoints addresses %v, want the primary family only", ready)
	}
	if e.Labels[discoveryv1.LabelSkipMirror] != "true" {
		t.Errorf("Endpoints labels %v, want %s=true", e.Labels, discoveryv1.LabelSkipMirror)
	}
	settled := writes(c)
	for _, r := range apiservers {
		c.reconcile(r)
	}
	if n := writes(c) - settled; n != 0 {
		t.Errorf("%d writes in a round with nothing changed, want none", n)
	}
}

// TestReconcileIPv6Primary: the slice named after the Service is the primary
// family's, IPv6 here, and the IPv4 one is kubernetes-ipv4.
func TestReconcileIPv6Primary(t *testing.T) {
	c := newCluster(t, corev1.IPv6Protocol, corev1.IPv4Protocol)
	r := c.netfork(ip6A, ipA)
	if d := c.reconcile(r); !d.DualStack() {
		t.Fatalf("shape %s, want %s", d.Shape, ShapeDualStack)
	}
	wantSlice(t, c, ServiceName, discoveryv1.AddressTypeIPv6, map[string]string{ip6A: "ready"})
	wantSlice(t, c, "kubernetes-ipv4", discoveryv1.AddressTypeIPv4, map[string]string{ipA: "ready"})
}

// TestReconcileSecondarySliceFollowsTheOldestApiserver: an upstream apiserver
// joining a dual-stack cluster makes the next netfork reconcile delete the
// secondary slice (upstream #101070); once its lease expires the cluster is
// dual-stack again.
func TestReconcileSecondarySliceFollowsTheOldestApiserver(t *testing.T) {
	c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
	a, b := c.netfork(ipA, ip6A), c.netfork(ipB, ip6B)
	c.reconcile(a)
	if d := c.reconcile(b); !d.DualStack() {
		t.Fatalf("shape %s before the upstream apiserver joined, want %s", d.Shape, ShapeDualStack)
	}

	up := c.upstream()
	if err := up.ReconcileEndpoints(ServiceName, netutils.ParseIPSloppy(ipD), httpsPorts, false); err != nil {
		t.Fatal(err)
	}
	if d := c.reconcile(a); d.Shape != ShapeUpstream {
		t.Fatalf("shape %s with an upstream apiserver live, want %s", d.Shape, ShapeUpstream)
	}
	wantNoIPv6Slice(t, c)
	wantSlice(t, c, ServiceName, discoveryv1.AddressTypeIPv4, map[string]string{ipA: "ready", ipB: "ready", ipD: "ready"})

	// the upstream apiserver stops without removing its lease; netfork's keep refreshing
	var d Decision
	for range 2 {
		c.clock.Step(10 * time.Second)
		c.reconcile(a)
		d = c.reconcile(b)
	}
	if !d.DualStack() {
		t.Fatalf("shape %s after the upstream lease expired, want %s", d.Shape, ShapeDualStack)
	}
	wantSlice(t, c, "kubernetes-ipv6", discoveryv1.AddressTypeIPv6, map[string]string{ip6A: "ready", ip6B: "ready"})
	wantSlice(t, c, ServiceName, discoveryv1.AddressTypeIPv4, map[string]string{ipA: "ready", ipB: "ready"})
}

// TestReconcileDyingApiserverNeverLooksOld: a netfork apiserver that dies
// leaves both leases to expire; its address lease outlives the upstream one,
// so no reconcile in between sees an apiserver without an address lease and
// flips the cluster to single-stack.
func TestReconcileDyingApiserverNeverLooksOld(t *testing.T) {
	c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
	a, b := c.netfork(ipA, ip6A), c.netfork(ipB, ip6B)
	c.reconcile(b)
	c.reconcile(a)
	// b dies now; a reconciles every second, refreshing its own leases every time
	for elapsed := time.Second; elapsed <= addressTTL+5*time.Second; elapsed += time.Second {
		c.clock.Step(time.Second)
		d := c.reconcile(a)
		if !d.DualStack() {
			t.Fatalf("%s after b died: shape %s, want %s throughout", elapsed, d.Shape, ShapeDualStack)
		}
		wantMembers := 2
		if elapsed >= legacyTTL {
			wantMembers = 1
		}
		if len(d.Members) != wantMembers {
			t.Fatalf("%s after b died: members %+v, want %d", elapsed, d.Members, wantMembers)
		}
	}
	wantSlice(t, c, "kubernetes-ipv6", discoveryv1.AddressTypeIPv6, map[string]string{ip6A: "ready"})
}

// TestReconcileTerminatingHandOff is KEP-1669's fallback for the apiserver:
// terminating while it still serves, then gone, and never back.
func TestReconcileTerminatingHandOff(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
	a, b := c.netfork(ipA, ip6A), c.netfork(ipB, ip6B)
	c.reconcile(a)
	c.reconcile(b)

	if _, err := b.MarkTerminating(ctx, httpsPorts); err != nil {
		t.Fatalf("MarkTerminating: %v", err)
	}
	for _, step := range []string{"b marked itself", "a reconciled"} {
		if step == "a reconciled" {
			c.reconcile(a)
		}
		wantSlice(t, c, ServiceName, discoveryv1.AddressTypeIPv4, map[string]string{ipA: "ready", ipB: "terminating"})
		wantSlice(t, c, "kubernetes-ipv6", discoveryv1.AddressTypeIPv6, map[string]string{ip6A: "ready", ip6B: "terminating"})
		ready, notReady := endpointsAddresses(c.endpoints())
		if !reflect.DeepEqual(ready, []string{ipA}) || !reflect.DeepEqual(notReady, []string{ipB}) {
			t.Errorf("%s: Endpoints ready %v not ready %v, want ready [%s] not ready [%s]", step, ready, notReady, ipA, ipB)
		}
	}

	b.StopReconciling()
	if _, err := b.Reconcile(ctx, httpsPorts); !errors.Is(err, ErrStopped) {
		t.Errorf("Reconcile after StopReconciling = %v, want ErrStopped", err)
	}
	if _, err := b.Remove(ctx, httpsPorts); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	for _, step := range []string{"b removed itself", "a reconciled"} {
		if step == "a reconciled" {
			c.reconcile(a)
		}
		wantSlice(t, c, ServiceName, discoveryv1.AddressTypeIPv4, map[string]string{ipA: "ready"})
		wantSlice(t, c, "kubernetes-ipv6", discoveryv1.AddressTypeIPv6, map[string]string{ip6A: "ready"})
	}
}

// TestMarkTerminatingAfterAPeersWrite: a peer's write between the terminating apiserver's
// read and its write makes it read and write again; with no shutdown delay that write is
// its one chance to be published as terminating before it removes itself.
func TestMarkTerminatingAfterAPeersWrite(t *testing.T) {
	c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
	a, b := c.netfork(ipA, ip6A), c.netfork(ipB, ip6B)
	c.reconcile(a)
	c.reconcile(b)
	conflicts := 0
	c.client.PrependReactor("update", "endpointslices", func(k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts > 0 {
			return false, nil, nil
		}
		conflicts++
		return true, nil, apierrors.NewConflict(discoveryv1.Resource("endpointslices"), ServiceName, errors.New("the object has been modified"))
	})
	if _, err := b.MarkTerminating(context.Background(), httpsPorts); err != nil {
		t.Fatalf("MarkTerminating after one conflict: %v", err)
	}
	if conflicts != 1 {
		t.Fatalf("%d conflicts injected, want 1", conflicts)
	}
	wantSlice(t, c, ServiceName, discoveryv1.AddressTypeIPv4, map[string]string{ipA: "ready", ipB: "terminating"})
}

// TestReconcileTerminatingWithUpstreamPeer: with an upstream apiserver live the
// objects stay upstream's, which has no terminating endpoints, rather than
// flap between the two at every reconcile.
func TestReconcileTerminatingWithUpstreamPeer(t *testing.T) {
	c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
	up, b := c.upstream(), c.netfork(ipB, ip6B)
	if err := up.ReconcileEndpoints(ServiceName, netutils.ParseIPSloppy(ipA), httpsPorts, false); err != nil {
		t.Fatal(err)
	}
	d, err := b.MarkTerminating(context.Background(), httpsPorts)
	if err != nil {
		t.Fatal(err)
	}
	if d.Shape != ShapeUpstream {
		t.Errorf("shape %s, want %s", d.Shape, ShapeUpstream)
	}
	wantSlice(t, c, ServiceName, discoveryv1.AddressTypeIPv4, map[string]string{ipA: "ready", ipB: "ready"})
	settled := writes(c)
	if err := up.ReconcileEndpoints(ServiceName, netutils.ParseIPSloppy(ipA), httpsPorts, false); err != nil {
		t.Fatal(err)
	}
	if n := writes(c) - settled; n != 0 {
		t.Errorf("upstream's reconciler rewrote %d objects after a netfork apiserver started terminating, want none", n)
	}
}

func TestRemove(t *testing.T) {
	ctx := context.Background()
	t.Run("clean start writes nothing", func(t *testing.T) {
		c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
		if _, err := c.netfork(ipA, ip6A).Remove(ctx, httpsPorts); err != nil {
			t.Fatalf("Remove with no leases: %v", err)
		}
		if n := writes(c); n != 0 {
			t.Errorf("%d writes, want none", n)
		}
	})
	t.Run("stale leases of a previous run refuse to erase the last endpoint", func(t *testing.T) {
		c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
		c.reconcile(c.netfork(ipA, ip6A))
		_, err := c.netfork(ipA, ip6A).Remove(ctx, httpsPorts)
		if err == nil {
			t.Fatal("Remove of the only apiserver while running succeeded, want upstream's refusal to erase every endpoint")
		}
		wantSlice(t, c, ServiceName, discoveryv1.AddressTypeIPv4, map[string]string{ipA: "ready"})
	})
	t.Run("the last apiserver stopping leaves no endpoint", func(t *testing.T) {
		c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
		r := c.netfork(ipA, ip6A)
		c.reconcile(r)
		r.StopReconciling()
		if _, err := r.Remove(ctx, httpsPorts); err != nil {
			t.Fatalf("Remove: %v", err)
		}
		wantSlice(t, c, ServiceName, discoveryv1.AddressTypeIPv4, map[string]string{})
		wantNoIPv6Slice(t, c)
		if len(c.legacy.live()) != 0 || len(c.leases.live()) != 0 {
			t.Errorf("leases left: upstream %v, address %v", c.legacy.live(), c.leases.live())
		}
	})
}

// TestReconcileReturnsWriteErrors: a failed write is returned, not hidden.
func TestReconcileReturnsWriteErrors(t *testing.T) {
	c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
	c.client.PrependReactor("create", "endpointslices", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("etcd is on fire")
	})
	if _, err := c.netfork(ipA, ip6A).Reconcile(context.Background(), httpsPorts); err == nil {
		t.Fatal("Reconcile with failing EndpointSlice creates succeeded")
	}
	if _, err := c.client.CoreV1().Endpoints(metav1.NamespaceDefault).Get(context.Background(), ServiceName, metav1.GetOptions{}); err == nil {
		t.Error("Endpoints written although the EndpointSlices failed; slices come first")
	}
}

func TestNewLeaseReconcilerRejects(t *testing.T) {
	c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
	ip := netutils.ParseIPSloppy
	base := Config{
		ServiceFamilies: []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol},
		Endpoints:       c.client.CoreV1(), EndpointSlices: c.client.DiscoveryV1(),
		LegacyLeases: c.legacy, AddressLeases: c.leases,
	}
	tests := []struct {
		name   string
		modify func(*Config)
		want   string
	}{
		{"no address", func(*Config) {}, "want one advertise address"},
		{"three addresses", func(c *Config) { c.AdvertiseAddresses = []net.IP{ip(ipA), ip(ip6A), ip(ipB)} }, "want one advertise address"},
		{"one family twice", func(c *Config) { c.AdvertiseAddresses = []net.IP{ip(ipA), ip(ipB)} }, "are of one family"},
		{"dual addresses, single ranges", func(c *Config) {
			c.AdvertiseAddresses = []net.IP{ip(ipA), ip(ip6A)}
			c.ServiceFamilies = c.ServiceFamilies[:1]
		}, "need dual-stack service ranges"},
		{"no leases", func(c *Config) { c.AdvertiseAddresses = []net.IP{ip(ipA)}; c.AddressLeases = nil }, "required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			tc.modify(&cfg)
			_, err := NewLeaseReconciler(cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewLeaseReconciler = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestValidateIP(t *testing.T) {
	r := newCluster(t, corev1.IPv4Protocol).netfork(ipA)
	for ip, ok := range map[string]bool{ipA: true, ip6A: true, "127.0.0.1": false, "::1": false, "169.254.0.1": false, "0.0.0.0": false} {
		if err := r.ValidateIP(netutils.ParseIPSloppy(ip)); (err == nil) != ok {
			t.Errorf("ValidateIP(%s) = %v, want ok=%t", ip, err, ok)
		}
	}
}

// TestReconcileKeepsThePortsOfTheEndpoints: like upstream's, the reconciler
// writes its port into new Endpoints only, so apiservers serving on different
// ports settle instead of rewriting each other.
func TestReconcileKeepsThePortsOfTheEndpoints(t *testing.T) {
	c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
	a, b := c.netfork(ipA, ip6A), c.netfork(ipB, ip6B)
	otherPorts := []corev1.EndpointPort{{Name: "https", Port: 7443, Protocol: corev1.ProtocolTCP}}
	round := func() {
		c.reconcile(a)
		if _, err := b.Reconcile(context.Background(), otherPorts); err != nil {
			t.Fatal(err)
		}
	}
	round()
	settled := writes(c)
	round()
	if n := writes(c) - settled; n != 0 {
		t.Errorf("%d writes in a second round, want none", n)
	}
	for _, name := range []string{ServiceName, "kubernetes-ipv6"} {
		if s := c.slice(name); len(s.Ports) != 1 || *s.Ports[0].Port != 6443 {
			t.Errorf("EndpointSlice %s ports %+v, want the first writer's 6443", name, s.Ports)
		}
	}
	if p := c.endpoints().Subsets[0].Ports; len(p) != 1 || p[0].Port != 6443 {
		t.Errorf("Endpoints ports %+v, want the first writer's 6443", p)
	}
}
