package controlplane

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/featuregate"

	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/test/integration/framework"
)

// TestMultiCIDRServiceAllocatorOff checks the gate upstream 1.37 locks can be
// turned off on netfork: ClusterIPs then come from the legacy bitmap alone, so
// no IPAddress is created and no default ServiceCIDR is bootstrapped.
func TestMultiCIDRServiceAllocatorOff(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, framework.WithFeatureGates(map[featuregate.Feature]bool{
		features.MultiCIDRServiceAllocator: false,
	}))

	created := createService(ctx, t, s.Client, clusterIPService("bitmap"))
	if !mustPrefix(t, "10.96.0.0/16").Contains(mustAddr(t, created.Spec.ClusterIP)) {
		t.Fatalf("ClusterIP %s is outside 10.96.0.0/16", created.Spec.ClusterIP)
	}
	// give an (unexpected) IPAddress allocator or ServiceCIDR controller time to act
	time.Sleep(2 * time.Second)
	if _, err := s.Client.NetworkingV1().IPAddresses().Get(ctx, created.Spec.ClusterIP, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("IPAddress %s: got err %v, want NotFound: the bitmap allocator creates no IPAddresses", created.Spec.ClusterIP, err)
	}
	if _, err := s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, defaultServiceCIDRName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("ServiceCIDR %q: got err %v, want NotFound with the gate off", defaultServiceCIDRName, err)
	}
}
