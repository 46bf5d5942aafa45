package controlplane

import (
	"fmt"
	"time"

	upstreamcontrolplane "k8s.io/kubernetes/pkg/controlplane"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"
)

// Extra is upstream's kube-apiserver configuration plus what netfork adds.
type Extra struct {
	upstreamcontrolplane.Extra

	// ServiceCIDRController is netfork's ServiceCIDR deletion controller's part.
	ServiceCIDRController ServiceCIDRController
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
