package controller

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/metrics/testutil"
	api "k8s.io/kubernetes/pkg/apis/core"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
)

// fakeBitmap is a RangeRegistry kept in memory with etcd's optimistic
// concurrency: a write whose resourceVersion is not the stored one conflicts.
type fakeBitmap struct {
	mu     sync.Mutex
	stored *api.RangeAllocation // nil until written
	rv     int
	// getErrs and writeErrs are returned, in order, before Get and CreateOrUpdate answer for real.
	getErrs   []error
	writeErrs []error
	writes    int
}

func (f *fakeBitmap) Get() (*api.RangeAllocation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.getErrs) > 0 {
		err := f.getErrs[0]
		f.getErrs = f.getErrs[1:]
		return nil, err
	}
	if f.stored == nil {
		return &api.RangeAllocation{}, nil
	}
	return f.stored.DeepCopy(), nil
}

func (f *fakeBitmap) CreateOrUpdate(a *api.RangeAllocation) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.writeErrs) > 0 {
		err := f.writeErrs[0]
		f.writeErrs = f.writeErrs[1:]
		return err
	}
	current := ""
	if f.stored != nil {
		current = f.stored.ResourceVersion
	}
	if a.ResourceVersion != current {
		return errConflict
	}
	f.rv++
	f.stored = a.DeepCopy()
	f.stored.ResourceVersion = strconv.Itoa(f.rv)
	f.writes++
	return nil
}

// bump changes the stored bitmap's resourceVersion, as a concurrent allocation would.
func (f *fakeBitmap) bump() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rv++
	f.stored.ResourceVersion = strconv.Itoa(f.rv)
}

// errConflict is the error etcd's optimistic concurrency answers a stale write with.
var errConflict = apierrors.NewConflict(api.Resource("rangeallocations"), "", fmt.Errorf("the object has been modified"))

// newBitmap is a stored bitmap over cidr with ips allocated.
func newBitmap(t *testing.T, cidr string, ips ...string) *fakeBitmap {
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
	f := &fakeBitmap{stored: &api.RangeAllocation{}}
	if err := r.Snapshot(f.stored); err != nil {
		t.Fatalf("Snapshot(%s): %v", cidr, err)
	}
	f.bump()
	return f
}

// ips lists the IPs allocated in the stored bitmap, sorted, and its range.
func (f *fakeBitmap) ips(t *testing.T) (string, []string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stored == nil {
		return "", nil
	}
	r, err := ipallocator.NewFromSnapshot(f.stored)
	if err != nil {
		t.Fatalf("NewFromSnapshot(%s): %v", f.stored.Range, err)
	}
	var got []string
	r.ForEach(func(ip net.IP) { got = append(got, ip.String()) })
	slices.Sort(got)
	return f.stored.Range, got
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
func warning(name, reason, action, note string) event {
	return event{regarding: "default/" + name, eventType: corev1.EventTypeWarning, reason: reason, action: action, note: note}
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

// event is what the tests check of a recorded event.
type event struct {
	regarding, eventType, reason, action, note string
}

// fakeRecorder records events in order; it implements events.EventRecorder.
type fakeRecorder struct {
	mu     sync.Mutex
	events []event
}

func (r *fakeRecorder) Eventf(regarding runtime.Object, _ runtime.Object, eventType, reason, action, note string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	svc := regarding.(*corev1.Service)
	r.events = append(r.events, event{
		regarding: svc.Namespace + "/" + svc.Name,
		eventType: eventType, reason: reason, action: action,
		note: fmt.Sprintf(note, args...),
	})
}

func (r *fakeRecorder) recorded() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// fastBackoff keeps first-pass retries in the milliseconds.
var fastBackoff = wait.Backoff{Duration: time.Millisecond, Factor: 2, Steps: 100, Cap: 10 * time.Millisecond}

// newTestRepair is a bitmap Repair over the given ranges (secondaryCIDR may be
// empty) that records its events in a fakeRecorder, with its metrics reset.
func newTestRepair(t *testing.T, client kubernetes.Interface, primaryCIDR string, primary *fakeBitmap, secondaryCIDR string, secondary *fakeBitmap) (*Repair, *fakeRecorder) {
	t.Helper()
	c := Config{Interval: time.Hour, Client: client, PrimaryRange: *mustCIDR(t, primaryCIDR), PrimaryBitmap: primary}
	if secondaryCIDR != "" {
		c.SecondaryRange, c.SecondaryBitmap = *mustCIDR(t, secondaryCIDR), secondary
	}
	r := newBitmapRepair(c)
	rec := &fakeRecorder{}
	r.recorder = rec
	r.firstPassBackoff = fastBackoff
	clusterIPRepairIPErrors.Reset()
	clusterIPRepairReconcileErrors.Reset()
	return r, rec
}

// allErrorTypes are the values of the type label of clusterIPRepairIPErrors.
var allErrorTypes = []string{errorTypeLeak, errorTypeRepair, errorTypeFull, errorTypeOutOfRange, errorTypeDuplicate, errorTypeUnknown, errorTypeInvalid}

// ipErrors reads clusterIPRepairIPErrors, leaving out the types at zero.
func ipErrors(t *testing.T) map[string]float64 {
	t.Helper()
	got := map[string]float64{}
	for _, typ := range allErrorTypes {
		v, err := testutil.GetCounterMetricValue(clusterIPRepairIPErrors.WithLabelValues(typ))
		if err != nil {
			t.Fatalf("reading ip_errors_total{type=%q}: %v", typ, err)
		}
		if v != 0 {
			got[typ] = v
		}
	}
	return got
}

// reconcileErrors reads clusterIPRepairReconcileErrors.
func reconcileErrors(t *testing.T) float64 {
	t.Helper()
	v, err := testutil.GetCounterMetricValue(clusterIPRepairReconcileErrors)
	if err != nil {
		t.Fatalf("reading reconcile_errors_total: %v", err)
	}
	return v
}
