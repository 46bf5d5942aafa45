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
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// Health checking as kind's CDS template configures Envoy: /healthz over TLS without
// verification, every 2 s, 3 s timeout, unhealthy after 2 failures, healthy after 1 success.
const (
	checkInterval      = 2 * time.Second
	checkTimeout       = 3 * time.Second
	unhealthyThreshold = 2
	connectTimeout     = 250 * time.Millisecond
)

// backend is one apiserver and its health.
type backend struct {
	addr     string
	mu       sync.Mutex
	healthy  bool
	failures int
	cancel   context.CancelFunc
}

// balancer owns the listener and the backends.
type balancer struct {
	mu       sync.Mutex
	listen   string
	listener net.Listener
	backends []*backend
	next     int
}

func newBalancer() *balancer { return &balancer{} }

// apply switches to a new configuration: rebinds if the listener moved, keeps the health of
// backends that stay, starts checking new ones.
func (b *balancer) apply(ctx context.Context, cfg dynamic) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	old := map[string]*backend{}
	for _, be := range b.backends {
		old[be.addr] = be
	}
	var backends []*backend
	for _, addr := range cfg.backends {
		if be, ok := old[addr]; ok {
			backends = append(backends, be)
			delete(old, addr)
			continue
		}
		cctx, cancel := context.WithCancel(ctx)
		be := &backend{addr: addr, cancel: cancel}
		go be.check(cctx)
		backends = append(backends, be)
	}
	for _, be := range old {
		be.cancel()
	}
	b.backends = backends
	if cfg.listen == b.listen {
		return nil
	}
	if b.listener != nil {
		_ = b.listener.Close()
		b.listener = nil
	}
	b.listen = ""
	if cfg.listen == "" {
		return nil
	}
	l, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return err
	}
	b.listener, b.listen = l, cfg.listen
	go b.serve(l)
	return nil
}

func (b *balancer) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.listener != nil {
		_ = b.listener.Close()
	}
	for _, be := range b.backends {
		be.cancel()
	}
}

// count is the number of backends, the most dial attempts one connection gets.
func (b *balancer) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.backends)
}

// pick returns the next healthy backend, round robin, or "" when none is healthy.
func (b *balancer) pick() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := 0; i < len(b.backends); i++ {
		be := b.backends[(b.next+i)%len(b.backends)]
		if be.isHealthy() {
			b.next = (b.next + i + 1) % len(b.backends)
			return be.addr
		}
	}
	return ""
}

func (b *balancer) serve(l net.Listener) {
	for {
		conn, err := l.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				log.Printf("accept: %v", err)
			}
			return
		}
		go b.proxy(conn)
	}
}

// proxy connects one client to a healthy backend, trying each healthy one once.
func (b *balancer) proxy(client net.Conn) {
	defer client.Close()
	var upstream net.Conn
	for i := 0; i < b.count() && upstream == nil; i++ {
		addr := b.pick()
		if addr == "" {
			break
		}
		c, err := net.DialTimeout("tcp", addr, connectTimeout)
		if err != nil {
			log.Printf("connect %s: %v", addr, err)
			continue
		}
		upstream = c
	}
	if upstream == nil {
		return
	}
	defer upstream.Close()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(upstream, client)
	go pipe(client, upstream)
	<-done
	<-done
}

func (be *backend) isHealthy() bool {
	be.mu.Lock()
	defer be.mu.Unlock()
	return be.healthy
}

// check probes the backend until ctx ends.
func (be *backend) check(ctx context.Context) {
	client := &http.Client{
		Timeout: checkTimeout,
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // Envoy's ACCEPT_UNTRUSTED
			DisableKeepAlives: true,
		},
	}
	tick := time.NewTicker(checkInterval)
	defer tick.Stop()
	for {
		ok := probe(ctx, client, be.addr)
		be.mu.Lock()
		switch {
		case ok && !be.healthy:
			be.healthy, be.failures = true, 0
			log.Printf("%s healthy", be.addr)
		case ok:
			be.failures = 0
		case be.healthy:
			be.failures++
			if be.failures >= unhealthyThreshold {
				be.healthy = false
				log.Printf("%s unhealthy", be.addr)
			}
		}
		be.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func probe(ctx context.Context, client *http.Client, addr string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/healthz", nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
