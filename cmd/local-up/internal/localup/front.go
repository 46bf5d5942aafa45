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

package localup

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"github.com/netfork/netfork/cmd/internal/tcpproxy"
)

// frontDialTimeout bounds a connection attempt to one apiserver before the next is tried.
const frontDialTimeout = 2 * time.Second

// errNoReadyAPIServer closes a client's connection when no apiserver is ready.
var errNoReadyAPIServer = errors.New("no apiserver is ready")

// startFront is a TCP front for several apiservers, as kind's load balancer is for its
// control plane: the kubeconfig names it, so clients keep working while any one apiserver
// is stopped or replaced. Each connection goes to the next ready apiserver in turn, or the
// one after when that one refuses; TLS passes through, and the serving cert names the
// front's address.
func startFront(addr string, backends func() []string) (*tcpproxy.Proxy, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	var next atomic.Uint32
	return tcpproxy.Start(ln, func(ctx context.Context) (net.Conn, error) {
		eps := backends()
		start := int(next.Add(1))
		for k := range eps {
			dialCtx, cancel := context.WithTimeout(ctx, frontDialTimeout)
			c, err := (&net.Dialer{}).DialContext(dialCtx, "tcp", eps[(start+k)%len(eps)])
			cancel()
			if err == nil {
				return c, nil
			}
		}
		return nil, errNoReadyAPIServer
	}), nil
}
