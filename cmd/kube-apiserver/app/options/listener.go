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
	"fmt"
	"net"

	"k8s.io/klog/v2"

	"github.com/netfork/netfork/staging-patches/apiserver/pkg/server/options/dualstack"
)

// Listen binds both families of a dual-stack --bind-address before upstream's
// SecureServingOptions.ApplyTo would bind only the primary, and hands upstream
// the merged listener, so both families share its TLS, authentication and
// shutdown. It returns the listener it made, for the caller to close if building
// the server fails, or nil when upstream binds as usual.
func (o *CompletedOptions) Listen(ctx context.Context) (net.Listener, error) {
	secure := o.SecureServing.SecureServingOptions
	if !o.DualStack.ServesBothFamilies() || secure.Listener != nil || secure.BindPort <= 0 {
		return nil, nil
	}
	ln, err := dualstack.Listen(ctx, o.DualStack.BindAddresses, secure.BindPort, dualstack.ListenOptions{
		PermitPortSharing:    secure.PermitPortSharing,
		PermitAddressSharing: secure.PermitAddressSharing,
	})
	if err != nil && o.autodetected {
		klog.Warningf("DualStackAPIServer: cannot serve both families (%v); serving single-stack", err)
		o.DualStack = DualStack{BindAddresses: o.DualStack.BindAddresses[:1], AdvertiseAddresses: o.DualStack.AdvertiseAddresses[:1]}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", BindAddressFlag, err)
	}
	klog.Infof("DualStackAPIServer: serving on %v behind one server", ln.Addrs())
	secure.Listener = ln
	return ln, nil
}
