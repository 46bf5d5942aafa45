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

package main

import (
	"context"
	"net/netip"
	"time"

	restclient "k8s.io/client-go/rest"

	"github.com/netfork/netfork/internal/pki"
	"github.com/netfork/netfork/internal/proc"
)

// waitReady waits for /readyz on both addresses of every apiserver, probed
// from inside its host's namespace, and fails as soon as one apiserver exits,
// the timeout passes or ctx ends.
func waitReady(ctx context.Context, certs *pki.PKI, servers []*apiserver, port int, timeout time.Duration) error {
	var exits []proc.ReadyOption
	for _, a := range servers {
		exits = append(exits, proc.ExitsOn(a.Process))
	}
	deadline := time.Now().Add(timeout)
	for _, a := range servers {
		for _, addr := range a.host.addresses() {
			opts := append([]proc.ReadyOption{proc.Timeout(time.Until(deadline))}, exits...)
			if err := proc.WaitReady(ctx, readyConfig(a, addr, port, certs.Paths), opts...); err != nil {
				return err
			}
		}
	}
	return nil
}

// readyConfig is a client of a's apiserver at addr that authenticates as the
// admin, trusts only the local CA and dials from inside a's namespace.
func readyConfig(a *apiserver, addr netip.Addr, port int, p pki.Paths) *restclient.Config {
	return &restclient.Config{
		Host:            "https://" + hostPort(addr, port),
		TLSClientConfig: restclient.TLSClientConfig{CAFile: p.CACert, CertFile: p.AdminCert, KeyFile: p.AdminKey},
		Dial:            dialerIn(a.host.Netns),
	}
}
