package main

import (
	"context"
	"net"

	"github.com/netfork/netfork/internal/tcpproxy"
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
