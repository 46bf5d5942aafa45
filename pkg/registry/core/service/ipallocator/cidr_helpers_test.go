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
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"

	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
)

// serviceCIDR is a ServiceCIDR fixture; created orders them (older first).
func serviceCIDR(name string, created int, cidrs ...string) *networkingv1.ServiceCIDR {
	return &networkingv1.ServiceCIDR{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(time.Unix(int64(created), 0))},
		Spec:       networkingv1.ServiceCIDRSpec{CIDRs: cidrs},
	}
}

// ipAddressFor is an IPAddress as upstream's allocator writes it for Service default/name.
func ipAddressFor(addr, name string) *networkingv1.IPAddress {
	family := "IPv4"
	if netip.MustParseAddr(addr).Is6() {
		family = "IPv6"
	}
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: addr, Labels: map[string]string{
			networkingv1.LabelIPAddressFamily: family,
			networkingv1.LabelManagedBy:       upstreamipallocator.ControllerName,
		}},
		Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: name}},
	}
}

// cidrFixture is a CIDRAllocator on a fake clientset with running informers and IPAddress index.
type cidrFixture struct {
	alloc  *CIDRAllocator
	client *fake.Clientset
}

type fixtureOption func(*CIDRConfig)

func withBitmap(r *Range) fixtureOption { return func(c *CIDRConfig) { c.Bitmap = r } }

// newCIDRFixture starts an allocator for flag's family over the objects given.
func newCIDRFixture(t testing.TB, flag string, objects []runtime.Object, opts ...fixtureOption) *cidrFixture {
	t.Helper()
	client := fake.NewClientset(objects...)
	factory := informers.NewSharedInformerFactory(client, 0)
	index := ipaddressindex.New(client)
	c := CIDRConfig{
		FlagCIDR:     *mustCIDR(t, flag),
		Writer:       client.NetworkingV1().IPAddresses(),
		ServiceCIDRs: factory.Networking().V1().ServiceCIDRs(),
		IPAddresses:  index,
		Services:     factory.Core().V1().Services().Informer(),
		Rand:         rand.NewPCG(1, 2),
	}
	for _, o := range opts {
		o(&c)
	}
	alloc, err := NewCIDRAllocator(c)
	if err != nil {
		t.Fatalf("NewCIDRAllocator: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	index.Start(ctx)
	t.Cleanup(func() {
		alloc.Destroy()
		cancel()
		factory.Shutdown()
	})
	if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return alloc.synced(), nil
	}); err != nil {
		t.Fatalf("allocator never synced: %v", err)
	}
	return &cidrFixture{alloc: alloc, client: client}
}

// service is a Service fixture in the default namespace with the ClusterIPs given.
func service(name string, ips ...string) *api.Service {
	return &api.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: api.ServiceSpec{ClusterIPs: ips}}
}

// serviceObject is a v1 Service fixture with the ClusterIPs given, as the informers see it.
func serviceObject(ns, name string, ips ...string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{ClusterIP: ips[0], ClusterIPs: ips}}
}

// allocateNext allocates and commits a ClusterIP for Service default/name, as the storage would.
func (f *cidrFixture) allocateNext(t testing.TB, name string) netip.Addr {
	t.Helper()
	ip, err := f.alloc.AllocateNext()
	if err != nil {
		t.Fatalf("AllocateNext for %s: %v", name, err)
	}
	if err := f.alloc.Commit(context.Background(), service(name, ip.String()), []string{ip.String()}); err != nil {
		t.Fatalf("Commit %s for %s: %v", ip, name, err)
	}
	return netip.MustParseAddr(ip.String())
}

// waitFor polls cond until it holds or fails the test with what.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	}); err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// ipAddressExists reports whether the fake API has an IPAddress named addr.
func (f *cidrFixture) ipAddressExists(addr string) bool {
	_, err := f.client.NetworkingV1().IPAddresses().Get(context.Background(), addr, metav1.GetOptions{})
	return err == nil
}

// failIPAddressCreates makes every IPAddress create fail with err.
func (f *cidrFixture) failIPAddressCreates(err error) {
	f.client.PrependReactor("create", "ipaddresses", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, err
	})
}

// ipsOf lists n addresses of a prefix from its first, for fixtures.
func ipsOf(prefix string, n int) []string {
	p := netip.MustParsePrefix(prefix)
	a := p.Addr().Next()
	out := make([]string, 0, n)
	for range n {
		out = append(out, a.String())
		a = a.Next()
	}
	return out
}

func netIP(s string) net.IP { return net.ParseIP(s) }

func svcName(i int) string { return fmt.Sprintf("svc-%d", i) }
