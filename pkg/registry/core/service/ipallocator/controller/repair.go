package controller

import (
	"net"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/rangeallocation"
	"k8s.io/utils/clock"

	"github.com/netfork/netfork/pkg/features"
)

// Runner runs a repair loop until stopCh closes, calling onFirstSuccess once
// after its first complete pass.
type Runner interface {
	RunUntil(onFirstSuccess func(), stopCh chan struct{})
}

var (
	_ Runner = (*Repair)(nil)
	_ Runner = (*RepairIPAddress)(nil)
)

// Config holds what a ClusterIP repair loop needs.
type Config struct {
	Interval time.Duration
	// Allocation is the ClusterIP allocation mode the loop keeps true.
	Allocation features.ClusterIPAllocation
	Client     kubernetes.Interface
	// Informers feed the IPAddress repair loop: Services, ServiceCIDRs, IPAddresses.
	Informers informers.SharedInformerFactory

	// PrimaryRange, SecondaryRange and their bitmaps are used in bitmap mode only.
	PrimaryRange    net.IPNet
	PrimaryBitmap   rangeallocation.RangeRegistry
	SecondaryRange  net.IPNet
	SecondaryBitmap rangeallocation.RangeRegistry

	// LegacyBitmaps are the legacy bitmaps by family, read only, when
	// ClusterIPs are IPAddresses that this apiserver does not mirror in them:
	// the IPAddress repair loop then tells a bitmap-only apiserver sharing the
	// cluster, a mix KEP-1880 calls unsafe.
	LegacyBitmaps map[api.IPFamily]rangeallocation.RangeRegistry
}

// NewRepair returns the repair loop that matches the ClusterIP allocator in use.
func NewRepair(c Config) Runner {
	if !c.Allocation.UsesIPAddresses() {
		return newBitmapRepair(c)
	}
	return newRepairIPAddress(c, clock.RealClock{})
}
