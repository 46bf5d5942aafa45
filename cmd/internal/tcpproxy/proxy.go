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

package tcpproxy

import (
	"context"
	"io"
	"net"
	"sync"
	"time"
)

// dialTimeout bounds connecting to a target for one accepted connection.
const dialTimeout = 10 * time.Second

// DialFunc connects to the target for one accepted connection; an error closes
// the client's connection, as a refused one would be.
type DialFunc func(ctx context.Context) (net.Conn, error)

// Proxy relays every connection accepted on a listener to what its DialFunc returns.
type Proxy struct {
	listener net.Listener
	dial     DialFunc
	mu       sync.Mutex
	// pairs are the relayed connections, nil once the proxy is closing.
	pairs map[*pair]struct{}
	wg    sync.WaitGroup
}

// pair is one relayed connection: the client's and the one to its target.
type pair struct {
	client, target net.Conn
}

// close ends both sides of the pair.
func (p *pair) close() {
	_ = p.client.Close() // The relay may have closed either side already.
	_ = p.target.Close()
}

// Start relays connections from l until Close.
func Start(l net.Listener, dial DialFunc) *Proxy {
	p := &Proxy{listener: l, dial: dial, pairs: map[*pair]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	return p
}

// Addr is where the proxy listens.
func (p *Proxy) Addr() net.Addr { return p.listener.Addr() }

// serve accepts until the listener is closed.
func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.listener.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.relay(c)
		}()
	}
}

// relay copies both ways between c and a new connection to the target until
// either side closes, then closes both.
func (p *Proxy) relay(c net.Conn) {
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	up, err := p.dial(ctx)
	cancel()
	if err != nil {
		return
	}
	defer up.Close()
	pr := &pair{client: c, target: up}
	if !p.track(pr) {
		return
	}
	defer p.untrack(pr)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}

// track records a relayed pair so Close can end it; false once the proxy is closing.
func (p *Proxy) track(pr *pair) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pairs == nil {
		return false
	}
	p.pairs[pr] = struct{}{}
	return true
}

// untrack forgets a finished pair.
func (p *Proxy) untrack(pr *pair) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.pairs, pr)
}

// CloseTo ends every relayed connection whose target is addr (host:port as dialed),
// as a load balancer drains a backend it took out: clients reconnect to another.
// It returns how many it ended.
func (p *Proxy) CloseTo(addr string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for pr := range p.pairs {
		if pr.target.RemoteAddr().String() == addr {
			pr.close()
			n++
		}
	}
	return n
}

// Close stops accepting, ends every relayed connection and returns once all
// relays have finished.
func (p *Proxy) Close() {
	_ = p.listener.Close() // A second close has nothing to report.
	p.mu.Lock()
	for pr := range p.pairs {
		pr.close()
	}
	p.pairs = nil
	p.mu.Unlock()
	p.wg.Wait()
}
