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
	"net"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/client-go/kubernetes/fake"
	upstreamreconcilers "k8s.io/kubernetes/pkg/controlplane/reconcilers"
	clocktesting "k8s.io/utils/clock/testing"
	netutils "k8s.io/utils/net"
)

// The TTLs the fakes use: the address lease outlives the upstream one, as
// pkg/controlplane configures them (upstream's TTL plus one interval).
const (
	legacyTTL  = 15 * time.Second
	addressTTL = 25 * time.Second
)

var httpsPorts = []corev1.EndpointPort{{Name: "https", Port: 6443, Protocol: corev1.ProtocolTCP}}

// fakeStore is a TTL'd key-value store on a fake clock, standing in for etcd.
type fakeStore[V any] struct {
	mu      sync.Mutex
	clock   *clocktesting.FakeClock
	ttl     time.Duration
	entries map[string]fakeEntry[V]
}

type fakeEntry[V any] struct {
	value   V
	expires time.Time
}

func newFakeStore[V any](clock *clocktesting.FakeClock, ttl time.Duration) *fakeStore[V] {
	return &fakeStore[V]{clock: clock, ttl: ttl, entries: map[string]fakeEntry[V]{}}
}

func (s *fakeStore[V]) put(key string, v V) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries[key] = fakeEntry[V]{value: v, expires: s.clock.Now().Add(s.ttl)}
}

func (s *fakeStore[V]) live() map[string]V {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]V{}
	for k, e := range s.entries {
		if s.clock.Now().Before(e.expires) {
			out[k] = e.value
		}
	}
	return out
}

func (s *fakeStore[V]) remove(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[key]
	delete(s.entries, key)
	return ok && s.clock.Now().Before(e.expires)
}

// fakeLegacyLeases is upstream's Leases interface over a fakeStore.
type fakeLegacyLeases struct{ *fakeStore[struct{}] }

var _ upstreamreconcilers.Leases = fakeLegacyLeases{}

func (f fakeLegacyLeases) ListLeases() ([]string, error) {
	var ips []string
	for ip := range f.live() {
		ips = append(ips, ip)
	}
	sort.Strings(ips)
	return ips, nil
}
func (f fakeLegacyLeases) UpdateLease(ip string) error { f.put(ip, struct{}{}); return nil }
func (f fakeLegacyLeases) RemoveLease(ip string) error {
	if !f.remove(ip) {
		return storage.NewKeyNotFoundError(LegacyLeasesPrefix+ip, 0)
	}
	return nil
}
func (f fakeLegacyLeases) Destroy() {}

// fakeAddressLeases is AddressLeases over a fakeStore.
type fakeAddressLeases struct{ *fakeStore[AddressLease] }

var _ AddressLeases = fakeAddressLeases{}

func (f fakeAddressLeases) List(context.Context) (map[string]AddressLease, error) {
	return f.live(), nil
}
func (f fakeAddressLeases) Update(_ context.Context, l AddressLease) error {
	f.put(l.Primary(), l)
	return nil
}
func (f fakeAddressLeases) Remove(_ context.Context, primary string) error {
	f.remove(primary)
	return nil
}
func (f fakeAddressLeases) Destroy() {}

// cluster is one etcd's worth of leases and one API's objects shared by
// several apiservers' reconcilers, on one fake clock.
type cluster struct {
	t       *testing.T
	clock   *clocktesting.FakeClock
	legacy  fakeLegacyLeases
	leases  fakeAddressLeases
	client  *fake.Clientset
	service []corev1.IPFamily
}

func newCluster(t *testing.T, serviceFamilies ...corev1.IPFamily) *cluster {
	clock := clocktesting.NewFakeClock(time.Now())
	return &cluster{
		t:       t,
		clock:   clock,
		legacy:  fakeLegacyLeases{newFakeStore[struct{}](clock, legacyTTL)},
		leases:  fakeAddressLeases{newFakeStore[AddressLease](clock, addressTTL)},
		client:  fake.NewClientset(),
		service: serviceFamilies,
	}
}

// netfork returns a netfork apiserver's reconciler advertising addrs.
func (c *cluster) netfork(addrs ...string) *LeaseReconciler {
	c.t.Helper()
	var ips []net.IP
	for _, a := range addrs {
		ips = append(ips, netutils.ParseIPSloppy(a))
	}
	r, err := NewLeaseReconciler(Config{
		AdvertiseAddresses: ips,
		ServiceFamilies:    c.service,
		Endpoints:          c.client.CoreV1(),
		EndpointSlices:     c.client.DiscoveryV1(),
		LegacyLeases:       c.legacy,
		AddressLeases:      c.leases,
	})
	if err != nil {
		c.t.Fatalf("NewLeaseReconciler(%v): %v", addrs, err)
	}
	return r
}

// upstream returns upstream's own lease reconciler on the same leases and API.
func (c *cluster) upstream() upstreamreconcilers.EndpointReconciler {
	adapter := upstreamreconcilers.NewEndpointsAdapter(c.client.CoreV1(), c.client.DiscoveryV1())
	return upstreamreconcilers.NewLeaseEndpointReconciler(adapter, c.legacy)
}

func (c *cluster) reconcile(r *LeaseReconciler) Decision {
	c.t.Helper()
	d, err := r.Reconcile(context.Background(), httpsPorts)
	if err != nil {
		c.t.Fatalf("Reconcile: %v", err)
	}
	return d
}

func (c *cluster) endpoints() *corev1.Endpoints {
	c.t.Helper()
	e, err := c.client.CoreV1().Endpoints(metav1.NamespaceDefault).Get(context.Background(), ServiceName, metav1.GetOptions{})
	if err != nil {
		c.t.Fatalf("reading Endpoints: %v", err)
	}
	return e
}

// slice returns the named slice, or nil when it does not exist.
func (c *cluster) slice(name string) *discoveryv1.EndpointSlice {
	c.t.Helper()
	s, err := c.client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		c.t.Fatalf("reading EndpointSlice %s: %v", name, err)
	}
	return s
}

// endpointsOf summarizes a slice as address -> condition string, e.g. "ready"
// or "terminating" (ready=false, serving=true, terminating=true).
func endpointsOf(t *testing.T, s *discoveryv1.EndpointSlice) map[string]string {
	t.Helper()
	if s == nil {
		return nil
	}
	out := map[string]string{}
	for _, ep := range s.Endpoints {
		c := ep.Conditions
		switch {
		case len(ep.Addresses) != 1:
			t.Fatalf("slice %s endpoint with addresses %v, want one", s.Name, ep.Addresses)
		case c.Ready != nil && *c.Ready && c.Serving == nil && c.Terminating == nil:
			out[ep.Addresses[0]] = "ready"
		case c.Ready != nil && !*c.Ready && c.Serving != nil && *c.Serving && c.Terminating != nil && *c.Terminating:
			out[ep.Addresses[0]] = "terminating"
		default:
			t.Fatalf("slice %s endpoint %s has conditions %+v", s.Name, ep.Addresses[0], c)
		}
	}
	return out
}
