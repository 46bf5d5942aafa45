package controller

import (
	"net"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	api "k8s.io/kubernetes/pkg/apis/core"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/registrytest"
	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
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
var allErrorTypes = []string{errorTypeLeak, errorTypeRepair, errorTypeFull, errorTypeOutOfRange, errorTypeDuplicate, errorTypeUnknown, errorTypeInvalid}

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
