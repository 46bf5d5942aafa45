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
	"net"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/rangeallocation"
	"k8s.io/utils/clock"

	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
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
	// Informers feed the IPAddress repair loop with Services and
	// ServiceCIDRs; IPAddresses, this apiserver's IPAddress index, with
	// IPAddresses.
	Informers   informers.SharedInformerFactory
	IPAddresses *ipaddressindex.Index

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
