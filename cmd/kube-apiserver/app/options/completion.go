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

package options

import (
	"context"
	"net"

	upstreamoptions "k8s.io/kubernetes/cmd/kube-apiserver/app/options"

	"github.com/netfork/netfork/pkg/features"
)

// CompletedOptions are upstream's completed options plus the addresses the
// apiserver listens on and advertises per family.
type CompletedOptions struct {
	upstreamoptions.CompletedOptions

	// DualStack is the outcome of the address flags, the service ranges and the
	// host; later steps (endpoint reconciler, kubernetes Service) read it here.
	DualStack DualStack

	// featureGate is the kube feature gate as the flags left it.
	featureGate *features.Gate
	// dualStackEnabled is the DualStackAPIServer gate as the flags left it.
	dualStackEnabled bool
	// autodetected tells that DualStack came from the host, not the flags, so a
	// failed second bind falls back to single-stack as KEP-2438 asks.
	autodetected bool

	// EnableServiceCIDRController is --enable-servicecidr-controller.
	EnableServiceCIDRController bool
}

// Complete decides the per-family addresses first, so upstream's Complete finds
// the primary ones in its fields and defaults only what is still unset.
func (s *ServerRunOptions) Complete(ctx context.Context) (CompletedOptions, error) {
	gate, err := s.featureGate()
	if err != nil {
		return CompletedOptions{}, err
	}
	enabled := gate.Enabled(features.DualStackAPIServer)
	plan, err := s.completeDualStack(enabled)
	if err != nil {
		return CompletedOptions{}, err
	}
	if err := s.maybeSelfSignedCertsForBothFamilies(plan); err != nil {
		return CompletedOptions{}, err
	}
	completed, err := s.ServerRunOptions.Complete(ctx)
	if err != nil {
		return CompletedOptions{}, err
	}
	return CompletedOptions{
		CompletedOptions: completed,
		DualStack:        plan.finish(completed),
		featureGate:      gate,
		dualStackEnabled: enabled,
		autodetected:     plan.autodetected,

		EnableServiceCIDRController: s.EnableServiceCIDRController,
	}, nil
}

// finish fills what upstream defaulted: the single bind and advertise
// addresses, or the addresses of a listener the caller made.
func (p dualStackPlan) finish(o upstreamoptions.CompletedOptions) DualStack {
	d := DualStack{BindAddresses: p.bind, AdvertiseAddresses: p.advertise}
	if ln := o.SecureServing.Listener; ln != nil {
		d.BindAddresses = listenerAddresses(ln)
	}
	if len(d.BindAddresses) == 0 {
		d.BindAddresses = []net.IP{o.SecureServing.BindAddress}
	}
	if len(d.AdvertiseAddresses) == 0 {
		d.AdvertiseAddresses = []net.IP{o.GenericServerRunOptions.AdvertiseAddress}
	}
	return d
}

// listenerAddresses are the IPs a given listener serves, all of them for a merged one.
func listenerAddresses(ln net.Listener) []net.IP {
	addrs := []net.Addr{ln.Addr()}
	if merged, ok := ln.(interface{ Addrs() []net.Addr }); ok {
		addrs = merged.Addrs()
	}
	var ips []net.IP
	for _, a := range addrs {
		if tcp, ok := a.(*net.TCPAddr); ok {
			ips = append(ips, tcp.IP)
		}
	}
	return ips
}

// FeatureGate is the kube feature gate (netfork's features.Gate) as these options' flags set it.
func (o CompletedOptions) FeatureGate() *features.Gate { return o.featureGate }
