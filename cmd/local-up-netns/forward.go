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
	"net"

	"github.com/netfork/netfork/cmd/internal/tcpproxy"
)

// dialFunc connects to a forwarder's target.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// forward relays every connection accepted on l to target, dialed with dial,
// which may reach into another network namespace than the listener's.
func forward(l net.Listener, dial dialFunc, target string) *tcpproxy.Proxy {
	return tcpproxy.Start(l, func(ctx context.Context) (net.Conn, error) {
		return dial(ctx, "tcp", target)
	})
}
