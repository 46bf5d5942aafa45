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

package dualstack

import (
	"errors"
	"net"
	"sync"
)

// Listener accepts on several sockets as one net.Listener, so one http.Server
// (and upstream's TLS and authentication around it) serves every family.
type Listener struct {
	sockets []net.Listener

	accepted chan accepted
	closed   chan struct{}

	closeOnce sync.Once
	closeErr  error
	running   sync.WaitGroup
}

// accepted is what one socket's Accept returned.
type accepted struct {
	conn net.Conn
	err  error
}

var _ net.Listener = (*Listener)(nil)

// Merge serves sockets as one Listener; the first is the primary whose address
// Addr reports. Closing the Listener closes them all.
func Merge(sockets ...net.Listener) *Listener {
	l := &Listener{
		sockets:  sockets,
		accepted: make(chan accepted),
		closed:   make(chan struct{}),
	}
	for _, s := range sockets {
		l.running.Add(1)
		go l.acceptFrom(s)
	}
	return l
}

// acceptFrom forwards s's connections and errors one at a time, so the server's
// own Accept loop paces it and decides which errors are fatal; it stops when
// the Listener or s is closed.
func (l *Listener) acceptFrom(s net.Listener) {
	defer l.running.Done()
	for {
		conn, err := s.Accept()
		select {
		case l.accepted <- accepted{conn: conn, err: err}:
		case <-l.closed:
			if conn != nil {
				_ = conn.Close()
			}
			return
		}
		if errors.Is(err, net.ErrClosed) {
			return
		}
	}
}

// Accept returns the next connection from any socket; after Close it returns net.ErrClosed.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case <-l.closed:
		return nil, l.closedError()
	default:
	}
	select {
	case a := <-l.accepted:
		return a.conn, a.err
	case <-l.closed:
		return nil, l.closedError()
	}
}

func (l *Listener) closedError() error {
	return &net.OpError{Op: "accept", Net: l.Addr().Network(), Addr: l.Addr(), Err: net.ErrClosed}
}

// Close closes every socket and returns once no socket is accepting any more;
// later calls return the first call's result.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		close(l.closed)
		var errs []error
		for _, s := range l.sockets {
			if err := s.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		l.running.Wait()
		l.closeErr = errors.Join(errs...)
	})
	return l.closeErr
}

// Addr is the primary socket's address; upstream's ApplyTo reads the bind address and port from it.
func (l *Listener) Addr() net.Addr { return l.sockets[0].Addr() }

// Addrs are every socket's address, primary first.
func (l *Listener) Addrs() []net.Addr {
	addrs := make([]net.Addr, 0, len(l.sockets))
	for _, s := range l.sockets {
		addrs = append(addrs, s.Addr())
	}
	return addrs
}
