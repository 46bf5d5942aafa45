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

package controller

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	api "k8s.io/kubernetes/pkg/apis/core"
	testingclock "k8s.io/utils/clock/testing"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/registrytest"
	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
)

// newBitmap is a stored bitmap over cidr with ips allocated.
func newBitmap(t *testing.T, cidr string, ips ...string) *registrytest.Bitmap {
	t.Helper()
	r, err := ipallocator.NewInMemory(mustCIDR(t, cidr))
	if err != nil {
		t.Fatalf("NewInMemory(%s): %v", cidr, err)
	}
	for _, ip := range ips {
		if err := r.Allocate(netutils.ParseIPSloppy(ip)); err != nil {
			t.Fatalf("Allocate(%s) in %s: %v", ip, cidr, err)
		}
	}
	stored := &api.RangeAllocation{}
	if err := r.Snapshot(stored); err != nil {
		t.Fatalf("Snapshot(%s): %v", cidr, err)
	}
	return registrytest.NewBitmap(stored)
}

// storedIPs lists the IPs allocated in f's stored bitmap, sorted, and its range.
func storedIPs(t *testing.T, f *registrytest.Bitmap) (string, []string) {
	t.Helper()
	stored := f.Current()
	if stored == nil {
		return "", nil
	}
	r, err := ipallocator.NewFromSnapshot(stored)
	if err != nil {
		t.Fatalf("NewFromSnapshot(%s): %v", stored.Range, err)
	}
	var got []string
	r.ForEach(func(ip net.IP) { got = append(got, ip.String()) })
	slices.Sort(got)
	return stored.Range, got
}

func mustCIDR(t *testing.T, cidr string) *net.IPNet {
	t.Helper()
	_, n, err := netutils.ParseCIDRSloppy(cidr)
	if err != nil {
		t.Fatalf("ParseCIDRSloppy(%s): %v", cidr, err)
	}
	return n
}

// warning is the Warning event the repair loop records on default/name.
func warning(name, reason, action, note string) registrytest.Event {
	return registrytest.Event{Regarding: "default/" + name, EventType: corev1.EventTypeWarning, Reason: reason, Action: action, Note: note}
}

// newService is a ClusterIP Service with clusterIPs, primary family first.
func newService(name string, clusterIPs ...string) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIPs: clusterIPs},
	}
	if len(clusterIPs) > 0 {
		svc.Spec.ClusterIP = clusterIPs[0]
	}
	return svc
}

// newTestRepair is a bitmap Repair over the given ranges (secondaryCIDR may be
// empty) that records its events in a registrytest.Recorder, with its metrics reset.
func newTestRepair(t *testing.T, client kubernetes.Interface, primaryCIDR string, primary *registrytest.Bitmap, secondaryCIDR string, secondary *registrytest.Bitmap) (*Repair, *registrytest.Recorder) {
	t.Helper()
	c := Config{Interval: time.Hour, Client: client, PrimaryRange: *mustCIDR(t, primaryCIDR), PrimaryBitmap: primary}
	if secondaryCIDR != "" {
		c.SecondaryRange, c.SecondaryBitmap = *mustCIDR(t, secondaryCIDR), secondary
	}
	r := newBitmapRepair(c)
	rec := &registrytest.Recorder{}
	r.recorder = rec
	r.firstPassBackoff = registrytest.FastBackoff
	clusterIPRepairIPErrors.Reset()
	clusterIPRepairReconcileErrors.Reset()
	return r, rec
}

// allErrorTypes are the values of the type label of clusterIPRepairIPErrors.
var allErrorTypes = []string{errorTypeLeak, errorTypeRepair, errorTypeFull, errorTypeOutOfRange, errorTypeDuplicate, errorTypeUnknown, errorTypeInvalid, errorTypeBitmapOnly}

// ipErrors reads clusterIPRepairIPErrors, leaving out the types at zero.
func ipErrors(t *testing.T) map[string]float64 {
	t.Helper()
	return registrytest.TypeCounts(t, "ip_errors_total", clusterIPRepairIPErrors, allErrorTypes)
}

// reconcileErrors reads clusterIPRepairReconcileErrors.
func reconcileErrors(t *testing.T) float64 {
	t.Helper()
	return registrytest.Count(t, "reconcile_errors_total", clusterIPRepairReconcileErrors)
}

// testNow is the fake clock's start in the IPAddress repair tests.
var testNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// withUID gives svc the UID the API would, derived from its name.
func withUID(svc *corev1.Service) *corev1.Service {
	svc.UID = types.UID("uid-" + svc.Name)
	return svc
}

// newServiceCIDR is a ready ServiceCIDR over cidrs.
func newServiceCIDR(name string, cidrs ...string) *networkingv1.ServiceCIDR {
	return &networkingv1.ServiceCIDR{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       networkingv1.ServiceCIDRSpec{CIDRs: cidrs},
	}
}

// defaultCIDRs are the ServiceCIDRs most IPAddress repair tests run with.
func defaultCIDRs() []runtime.Object {
	return []runtime.Object{newServiceCIDR("kubernetes", "10.0.0.0/24", "fd00::/120")}
}

// newIPAddressFor is the IPAddress of ip created age before testNow, pointing
// at Service default/service (any other resource when resource is not
// "services"), labeled as upstream 1.37's allocator labels it. The label
// values are spelled out so that a change of netfork's constants shows here.
func newIPAddressFor(ip, resource, service string, age time.Duration) *networkingv1.IPAddress {
	family := "IPv4"
	if strings.Contains(ip, ":") {
		family = "IPv6"
	}
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{
			Name:              ip,
			UID:               types.UID("uid-" + ip),
			ResourceVersion:   "1",
			CreationTimestamp: metav1.NewTime(testNow.Add(-age)),
			Labels: map[string]string{
				"ipaddress.kubernetes.io/ip-family":  family,
				"ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io",
			},
		},
		Spec: networkingv1.IPAddressSpec{
			ParentRef: &networkingv1.ParentReference{Resource: resource, Namespace: "default", Name: service},
		},
	}
}

// withLabels replaces a's labels.
func withLabels(a *networkingv1.IPAddress, labels map[string]string) *networkingv1.IPAddress {
	a.Labels = labels
	return a
}

// eventLog records events as "Kind name Reason: note"; it implements events.EventRecorder.
type eventLog struct {
	mu  sync.Mutex
	got []string
}

func (l *eventLog) Eventf(regarding, _ runtime.Object, _, reason, _, note string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var who string
	switch o := regarding.(type) {
	case *corev1.Service:
		who = "Service " + o.Namespace + "/" + o.Name
	case *networkingv1.IPAddress:
		who = "IPAddress " + o.Name
	default:
		who = fmt.Sprintf("%T", regarding)
	}
	l.got = append(l.got, who+" "+reason+": "+fmt.Sprintf(note, args...))
}

func (l *eventLog) recorded() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.got)
}

// ipFixture is an IPAddress repair loop over a fake API and fake clock.
type ipFixture struct {
	r      *RepairIPAddress
	client *fake.Clientset
	clock  *testingclock.FakeClock
	events *eventLog
	// factory's informers and index are started only by startedIPFixture.
	factory informers.SharedInformerFactory
	index   *ipaddressindex.Index
}

func newIPFixtureWithoutCaches(t *testing.T, objs []runtime.Object) *ipFixture {
	t.Helper()
	client := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(client, 0)
	index := ipaddressindex.New(client)
	clk := testingclock.NewFakeClock(testNow)
	r := newRepairIPAddress(Config{Interval: time.Hour, Client: client, Informers: factory, IPAddresses: index}, clk)
	events := &eventLog{}
	r.recorder = events
	r.firstPassBackoff = registrytest.FastBackoff
	r.serviceCIDRWait = 0
	t.Cleanup(r.queue.ShutDown)
	clusterIPRepairIPErrors.Reset()
	clusterIPRepairReconcileErrors.Reset()
	return &ipFixture{r: r, client: client, clock: clk, events: events, factory: factory, index: index}
}

// newIPFixture holds objs in the API and in the caches. The caches are
// filled by hand, not by running informers, so that a test changes one
// without the other to play a cache that lags.
func newIPFixture(t *testing.T, objs ...runtime.Object) *ipFixture {
	t.Helper()
	f := newIPFixtureWithoutCaches(t, objs)
	for _, obj := range objs {
		f.cache(t, obj)
	}
	return f
}

// startedIPFixture holds objs in the API and runs the informers until the test ends.
func startedIPFixture(t *testing.T, objs ...runtime.Object) *ipFixture {
	t.Helper()
	f := newIPFixtureWithoutCaches(t, objs)
	f.start(t)
	return f
}

// start runs the informers and the index until the test ends; reactors must be in place before.
func (f *ipFixture) start(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f.factory.Start(ctx.Done())
	f.index.Start(ctx)
	t.Cleanup(func() {
		cancel()
		f.factory.Shutdown()
	})
}

// cache puts obj in the informer cache, or the index, of its kind.
func (f *ipFixture) cache(t *testing.T, obj runtime.Object) {
	t.Helper()
	var indexer cache.ReflectorStore
	switch obj.(type) {
	case *corev1.Service:
		indexer = f.factory.Core().V1().Services().Informer().GetIndexer()
	case *networkingv1.ServiceCIDR:
		indexer = f.factory.Networking().V1().ServiceCIDRs().Informer().GetIndexer()
	case *networkingv1.IPAddress:
		indexer = f.index.ReflectorStore()
	default:
		t.Fatalf("no cache for %T", obj)
	}
	if err := indexer.Add(obj); err != nil {
		t.Fatalf("caching %T: %v", obj, err)
	}
}

// ipAddresses describes every IPAddress in the API as
// "resource namespace/name family-label managed-by-label", by name.
func (f *ipFixture) ipAddresses(t *testing.T) map[string]string {
	t.Helper()
	list, err := f.client.NetworkingV1().IPAddresses().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing IPAddresses: %v", err)
	}
	got := map[string]string{}
	for _, a := range list.Items {
		ref := a.Spec.ParentRef
		got[a.Name] = fmt.Sprintf("%s %s/%s %s %s", ref.Resource, ref.Namespace, ref.Name,
			a.Labels[networkingv1.LabelIPAddressFamily], a.Labels[networkingv1.LabelManagedBy])
	}
	return got
}

// ipAddressOf describes, as ipAddresses does, the IPAddress the allocators make
// for Service default/service.
func ipAddressOf(ip, service string) string {
	family := "IPv4"
	if strings.Contains(ip, ":") {
		family = "IPv6"
	}
	return "services default/" + service + " " + family + " ipallocator.k8s.io"
}
