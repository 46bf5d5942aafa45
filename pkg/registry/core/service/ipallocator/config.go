package ipallocator

import (
	"net"

	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/pkg/features"
)

// Bitmap keys are upstream's, so bitmap-based apiservers sharing the etcd see the same ranges.
const (
	PrimaryBitmapKey   = "/ranges/serviceips"
	SecondaryBitmapKey = "/ranges/secondaryserviceips"
)

// Config holds what the ClusterIP allocators of one apiserver are built from.
type Config struct {
	// PrimaryRange and SecondaryRange are --service-cluster-ip-range; SecondaryRange.IP is nil when single-stack.
	PrimaryRange   net.IPNet
	SecondaryRange net.IPNet

	// Allocation is the mode MultiCIDRServiceAllocator and DisableAllocatorDualWrite select.
	Allocation features.ClusterIPAllocation

	// StorageConfig stores the legacy bitmaps (RangeAllocation objects).
	StorageConfig *storagebackend.ConfigForResource

	Client kubernetes.Interface
	// IPAddressWriter writes the IPAddresses; nil writes them with Client.
	IPAddressWriter IPAddressWriter
	Informers       informers.SharedInformerFactory
}
