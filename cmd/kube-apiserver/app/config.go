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

package app

import (
	apiextensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	aggregatorapiserver "k8s.io/kube-aggregator/pkg/apiserver"
	upstreamapp "k8s.io/kubernetes/cmd/kube-apiserver/app"

	"github.com/netfork/netfork/cmd/kube-apiserver/app/options"
	"github.com/netfork/netfork/pkg/controlplane"
)

// Config is everything the server chain is built from; only KubeAPIs is netfork's.
type Config struct {
	Options options.CompletedOptions

	Aggregator    *aggregatorapiserver.Config
	KubeAPIs      *controlplane.Config
	APIExtensions *apiextensionsapiserver.Config
}

// CompletedConfig is a Config whose parts have all been completed.
type CompletedConfig struct {
	Options options.CompletedOptions

	Aggregator    aggregatorapiserver.CompletedConfig
	KubeAPIs      controlplane.CompletedConfig
	APIExtensions apiextensionsapiserver.CompletedConfig
}

// NewConfig builds the configuration from the flags with upstream's code, which
// is pure configuration, and hands the kube-apiserver part to netfork's control plane.
func NewConfig(opts options.CompletedOptions) (*Config, error) {
	upstream, err := upstreamapp.NewConfig(opts.CompletedOptions)
	if err != nil {
		return nil, err
	}
	kubeAPIs := &controlplane.Config{
		Config:                *upstream.KubeAPIs,
		FeatureGate:           opts.FeatureGate(),
		ServiceCIDRController: controlplane.ServiceCIDRController{Disabled: !opts.EnableServiceCIDRController},
	}
	if opts.DualStackEnabled() {
		// GenericConfig.PublicAddress holds only the primary advertise address
		kubeAPIs.DualStack = controlplane.DualStack{Enabled: true, AdvertiseAddresses: opts.DualStack.AdvertiseAddresses}
	}
	return &Config{
		Options:       opts,
		Aggregator:    upstream.Aggregator,
		KubeAPIs:      kubeAPIs,
		APIExtensions: upstream.ApiExtensions,
	}, nil
}

// Complete fills in every part's defaults.
func (c *Config) Complete() (CompletedConfig, error) {
	kubeAPIs, err := c.KubeAPIs.Complete()
	if err != nil {
		return CompletedConfig{}, err
	}
	return CompletedConfig{
		Options:       c.Options,
		Aggregator:    c.Aggregator.Complete(),
		KubeAPIs:      kubeAPIs,
		APIExtensions: c.APIExtensions.Complete(),
	}, nil
}
