package main

import (
	"context"
	"io"
	"net"
	"sync"
	"time"
)

// forwardDialTimeout bounds connecting to a forwarder's target.
const forwardDialTimeout = 10 * time.Second

// dialFunc connects to a forwarder's target.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// forwarder relays every connection accepted on a listener to one target
// address, which may be in another network namespace than the listener.
type forwarder struct {
	listener net.Listener
	dial     dialFunc
	target   string
	wg       sync.WaitGroup
}

// forward starts relaying connections from l to target, dialed with dial.
func forward(l net.Listener, dial dialFunc, target string) *forwarder {
	f := &forwarder{listener: l, dial: dial, target: target}
	f.wg.Add(1)
	go f.serve()
	return f
}

// serve accepts until the listener is closed.
func (f *forwarder) serve() {
	defer f.wg.Done()
	for {
		c, err := f.listener.Accept()
		if err != nil {
			return
		}
		go f.relay(c)
	}
}

// relay copies both ways between c and a new connection to the target until
// either side closes, then closes both.
func (f *forwarder) relay(c net.Conn) {
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), forwardDialTimeout)
	up, err := f.dial(ctx, "tcp", f.target)
	cancel()
	if err != nil {
		return // The client sees its connection closed, as with a refused one.
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}

// close stops accepting; relayed connections end with their endpoints.
func (f *forwarder) close() {
	_ = f.listener.Close() // A second close has nothing to report.
	f.wg.Wait()
}
