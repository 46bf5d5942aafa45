package controlplane

import (
	"fmt"
	"net"
	"time"

	upstreamcontrolplane "k8s.io/kubernetes/pkg/controlplane"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"
	netutils "k8s.io/utils/net"
)

// Extra is upstream's kube-apiserver configuration plus what netfork adds.
type Extra struct {
	upstreamcontrolplane.Extra

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

// Config is the configuration of one netfork kube-apiserver.
type Config struct {
	ControlPlane controlplaneapiserver.Config
	Extra
}

// completedConfig is Config with every default filled in.
type completedConfig struct {
	ControlPlane controlplaneapiserver.CompletedConfig
	*Extra
}

// CompletedConfig can only be made by Complete, so New never sees an unfilled Config.
type CompletedConfig struct {
	*completedConfig
}

// NewConfig takes over the configuration upstream's command builds from the flags.
func NewConfig(upstream *upstreamcontrolplane.Config) *Config {
	return &Config{
		ControlPlane: upstream.ControlPlane,
		Extra:        Extra{Extra: upstream.Extra},
	}
}

// Complete fills in defaults. netfork constructs the endpoint reconciler itself
// and then lets upstream complete the rest (discovery addresses, NodePort range,
// intervals), which is plain configuration and stays upstream's.
func (c *Config) Complete() (CompletedConfig, error) {
	if c.MasterEndpointReconcileTTL == 0 {
		c.MasterEndpointReconcileTTL = upstreamcontrolplane.DefaultEndpointReconcilerTTL
	}
	if c.EndpointReconcilerConfig.Interval == 0 {
		c.EndpointReconcilerConfig.Interval = upstreamcontrolplane.DefaultEndpointReconcilerInterval
	}
	if c.DualStack.Enabled && c.SecondaryAPIServerServiceIP == nil && c.SecondaryServiceIPRange.IP != nil {
		// upstream leaves it unset: it never publishes the secondary family
		ip, err := netutils.GetIndexedIP(&c.SecondaryServiceIPRange, 1)
		if err != nil {
			return CompletedConfig{}, fmt.Errorf("choosing the kubernetes Service's IP in %s: %w", c.SecondaryServiceIPRange.String(), err)
		}
		c.SecondaryAPIServerServiceIP = ip
	}
	if c.EndpointReconcilerConfig.Reconciler == nil {
		reconciler, err := c.newEndpointReconciler()
		if err != nil {
			return CompletedConfig{}, fmt.Errorf("creating the %q endpoint reconciler: %w", c.EndpointReconcilerType, err)
		}
		c.EndpointReconcilerConfig.Reconciler = reconciler
	}

	upstream := &upstreamcontrolplane.Config{ControlPlane: c.ControlPlane, Extra: c.Extra.Extra}
	done := upstream.Complete()
	c.ControlPlane = upstream.ControlPlane
	c.Extra.Extra = *done.Extra
	return CompletedConfig{&completedConfig{ControlPlane: done.ControlPlane, Extra: &c.Extra}}, nil
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
