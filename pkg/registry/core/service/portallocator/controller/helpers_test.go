package controller

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/metrics/testutil"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/netfork/netfork/pkg/registry/core/service/portallocator"
)

// testRange is upstream's default NodePort range.
const testRange = "30000-32767"

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

// errConflict is the error etcd's optimistic concurrency answers a stale write with.
var errConflict = apierrors.NewConflict(api.Resource("rangeallocations"), "", fmt.Errorf("the object has been modified"))

// newBitmap is a stored bitmap over portRange with ports allocated.
func newBitmap(t *testing.T, portRange string, ports ...int) *fakeBitmap {
	t.Helper()
	a, err := portallocator.NewInMemory(mustPortRange(t, portRange))
	if err != nil {
		t.Fatalf("NewInMemory(%s): %v", portRange, err)
	}
	for _, port := range ports {
		if err := a.Allocate(port); err != nil {
			t.Fatalf("Allocate(%d) in %s: %v", port, portRange, err)
		}
	}
	f := &fakeBitmap{stored: &api.RangeAllocation{}, rv: 1}
	if err := a.Snapshot(f.stored); err != nil {
		t.Fatalf("Snapshot(%s): %v", portRange, err)
	}
	f.stored.ResourceVersion = "1"
	return f
}

// ports lists the ports allocated in the stored bitmap, sorted, and its range.
func (f *fakeBitmap) ports(t *testing.T) (string, []int) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stored == nil {
		return "", nil
	}
	a, err := portallocator.NewFromSnapshot(f.stored)
	if err != nil {
		t.Fatalf("NewFromSnapshot(%s): %v", f.stored.Range, err)
	}
	var got []int
	a.ForEach(func(port int) { got = append(got, port) })
	slices.Sort(got)
	return f.stored.Range, got
}

func mustPortRange(t *testing.T, s string) utilnet.PortRange {
	t.Helper()
	pr, err := utilnet.ParsePortRange(s)
	if err != nil {
		t.Fatalf("ParsePortRange(%s): %v", s, err)
	}
	return *pr
}

// newService is a NodePort Service with one TCP port per node port.
func newService(name string, nodePorts ...int32) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ClusterIP: "10.0.0.1", ClusterIPs: []string{"10.0.0.1"}},
	}
	for i, np := range nodePorts {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{
			Name: fmt.Sprintf("p%d", i), Protocol: corev1.ProtocolTCP, Port: int32(80 + i), NodePort: np,
		})
	}
	return svc
}

// withHealthCheck makes svc a LoadBalancer with externalTrafficPolicy Local and healthCheckNodePort hc.
func withHealthCheck(svc *corev1.Service, hc int32) *corev1.Service {
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	svc.Spec.HealthCheckNodePort = hc
	return svc
}

// event is what the tests check of a recorded event.
type event struct {
	regarding, eventType, reason, action, note string
}

// warning is the Warning event the repair loop records on default/name.
func warning(name, reason, note string) event {
	return event{regarding: "default/" + name, eventType: corev1.EventTypeWarning, reason: reason, action: "PortAllocation", note: note}
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

// newTestRepair is a Repair over testRange that records its events in a
// fakeRecorder, with its metrics reset.
func newTestRepair(t *testing.T, client kubernetes.Interface, bitmap *fakeBitmap) (*Repair, *fakeRecorder) {
	t.Helper()
	r := newRepair(time.Hour, client, mustPortRange(t, testRange), bitmap)
	rec := &fakeRecorder{}
	r.recorder = rec
	r.firstPassBackoff = fastBackoff
	nodePortRepairPortErrors.Reset()
	nodePortRepairReconcileErrors.Reset()
	return r, rec
}

// allErrorTypes are the values of the type label of nodePortRepairPortErrors.
var allErrorTypes = []string{errorTypeLeak, errorTypeRepair, errorTypeFull, errorTypeOutOfRange, errorTypeDuplicate, errorTypeUnknown}

// portErrors reads nodePortRepairPortErrors, leaving out the types at zero.
func portErrors(t *testing.T) map[string]float64 {
	t.Helper()
	got := map[string]float64{}
	for _, typ := range allErrorTypes {
		v, err := testutil.GetCounterMetricValue(nodePortRepairPortErrors.WithLabelValues(typ))
		if err != nil {
			t.Fatalf("reading port_errors_total{type=%q}: %v", typ, err)
		}
		if v != 0 {
			got[typ] = v
		}
	}
	return got
}

// reconcileErrors reads nodePortRepairReconcileErrors.
func reconcileErrors(t *testing.T) float64 {
	t.Helper()
	v, err := testutil.GetCounterMetricValue(nodePortRepairReconcileErrors)
	if err != nil {
		t.Fatalf("reading reconcile_errors_total: %v", err)
	}
	return v
}
