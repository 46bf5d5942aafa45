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

package controlplane

import (
	"fmt"
	"net"
	"time"

	"k8s.io/component-base/featuregate"
	upstreamcontrolplane "k8s.io/kubernetes/pkg/controlplane"
	"k8s.io/kubernetes/pkg/controlplane/reconcilers"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
)

// Config is one netfork kube-apiserver's configuration: upstream's, as
// upstream's command builds it from the flags, plus what netfork adds.
type Config struct {
	upstreamcontrolplane.Config

	// FeatureGate is this apiserver's kube feature gate (a features.Gate), as its flags set it.
	FeatureGate featuregate.FeatureGate

	// ServiceCIDRController is netfork's ServiceCIDR deletion controller's part.
	ServiceCIDRController ServiceCIDRController

	// DualStack is KEP-2438's part; its zero value is the gate off.
	DualStack DualStack
}

// DualStack is what the DualStackAPIServer gate changes in the control plane:
// netfork's lease reconciler and kubernetes-Service controller instead of
// upstream's, publishing every advertise address.
type DualStack struct {
	// Enabled is the DualStackAPIServer gate as this apiserver's flags set it.
	Enabled bool
	// AdvertiseAddresses are --advertise-address, primary first (the primary is
	// also GenericConfig.PublicAddress); one, or one per family.
	AdvertiseAddresses []net.IP
}

// ServiceCIDRController configures netfork's ServiceCIDR deletion controller;
// the zero value is production's: running, with the KEP's grace period.
type ServiceCIDRController struct {
	// Disabled leaves ServiceCIDR deletion to kube-controller-manager
	// (--enable-servicecidr-controller=false).
	Disabled bool
	// DeletionGracePeriod, when set, replaces servicecidrs.DefaultDeletionGracePeriod; tests shorten it.
	DeletionGracePeriod time.Duration
}

// completedConfig is Config with every default filled in.
type completedConfig struct {
	// Upstream is upstream's completed configuration.
	Upstream upstreamcontrolplane.CompletedConfig

	FeatureGate           featuregate.FeatureGate
	ServiceCIDRController ServiceCIDRController
	DualStack             DualStack

	// clusterIPUsage is set by StorageProviders: the ClusterIP allocators'
	// counts, for the ServiceCIDR usage controller.
	clusterIPUsage ipallocator.UsageReader
	// ipAddresses is set by StorageProviders: the IPAddress index the
	// allocators, the repair loop and the ServiceCIDR controllers follow.
	ipAddresses *ipaddressindex.Index
}

// CompletedConfig can only be made by Complete, so New never sees an unfilled Config.
type CompletedConfig struct {
	*completedConfig
}

// Complete gives the kubernetes Service's secondary IP, which only netfork
// has, lets upstream complete the rest, including every endpoint reconciler
// but netfork's dual-stack lease reconciler, and then builds that one.
func (c *Config) Complete() (CompletedConfig, error) {
	if c.FeatureGate == nil {
		return CompletedConfig{}, fmt.Errorf("controlplane.Config has no FeatureGate")
	}
	dualStackLeases := c.DualStack.Enabled && c.usesLeaseReconciler()
	if c.DualStack.Enabled {
		if err := c.completeSecondaryServiceIP(); err != nil {
			return CompletedConfig{}, err
		}
	}
	if dualStackLeases {
		// Upstream's Complete builds its own lease reconciler when none is set.
		c.EndpointReconcilerConfig.Reconciler = reconcilers.NewNoneEndpointReconciler()
	}
	// Upstream's completed config points at c.Extra: the defaults it sets are c's,
	// and so is the reconciler set after it.
	upstream := c.Config.Complete()
	if dualStackLeases {
		reconciler, err := c.newDualStackLeaseReconciler()
		if err != nil {
			return CompletedConfig{}, fmt.Errorf("creating the dual-stack lease endpoint reconciler: %w", err)
		}
		upstream.EndpointReconcilerConfig.Reconciler = reconciler
	}
	return CompletedConfig{&completedConfig{
		Upstream:              upstream,
		FeatureGate:           c.FeatureGate,
		ServiceCIDRController: c.ServiceCIDRController,
		DualStack:             c.DualStack,
	}}, nil
}

// usesLeaseReconciler says the configuration asks for the lease reconciler
// and none was given, so netfork builds its dual-stack one in its place.
func (c *Config) usesLeaseReconciler() bool {
	switch c.EndpointReconcilerType {
	case "", reconcilers.LeaseEndpointReconcilerType:
		return c.EndpointReconcilerConfig.Reconciler == nil
	default:
		return false
	}
}

// completeSecondaryServiceIP picks the kubernetes Service's secondary IP,
// which upstream leaves unset as it never publishes that family.
func (c *Config) completeSecondaryServiceIP() error {
	if c.SecondaryAPIServerServiceIP == nil && c.SecondaryServiceIPRange.IP != nil {
		ip, err := netutils.GetIndexedIP(&c.SecondaryServiceIPRange, 1)
		if err != nil {
			return fmt.Errorf("choosing the kubernetes Service's IP in %s: %w", c.SecondaryServiceIPRange.String(), err)
		}
		c.SecondaryAPIServerServiceIP = ip
	}
	return nil
}
