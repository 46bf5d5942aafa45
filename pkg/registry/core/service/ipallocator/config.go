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
	"net"

	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
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
	// Informers feed the allocators with Services and ServiceCIDRs;
	// IPAddresses, needed unless Allocation is Bitmaps, with IPAddresses.
	Informers   informers.SharedInformerFactory
	IPAddresses *ipaddressindex.Index
}
