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
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// netnsDir is where `ip netns add` keeps its namespaces.
const netnsDir = "/run/netns"

// inNetns runs fn on an OS thread that joined the named network namespace.
// Sockets fn creates belong to that namespace for their whole life, whichever
// thread uses them later. The thread then returns to the root namespace and
// to the runtime's pool; if it cannot, the goroutine ends still locked, so the
// runtime ends the thread instead of running other goroutines in the wrong
// namespace. Threads must not end otherwise: the apiservers' Pdeathsig fires
// when the thread that started them exits.
func inNetns(name string, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		errc <- joinNetns(name, fn)
	}()
	return <-errc
}

// joinNetns moves the calling (locked) thread into the named namespace, runs
// fn and moves the thread back; it unlocks the thread unless that failed.
func joinNetns(name string, fn func() error) error {
	home := true
	defer func() {
		if home {
			runtime.UnlockOSThread()
		}
	}()
	self, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return fmt.Errorf("reading this thread's network namespace: %w", err)
	}
	defer self.Close()
	target, err := os.Open(filepath.Join(netnsDir, name))
	if err != nil {
		return fmt.Errorf("network namespace %s: %w", name, err)
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("joining network namespace %s: %w", name, err)
	}
	defer func() { home = unix.Setns(int(self.Fd()), unix.CLONE_NEWNET) == nil }()
	return fn()
}

// listenIn listens on a TCP address inside the named namespace.
func listenIn(name, addr string) (net.Listener, error) {
	var l net.Listener
	err := inNetns(name, func() (err error) {
		l, err = net.Listen("tcp", addr)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("listening on %s in %s: %w", addr, name, err)
	}
	return l, nil
}

// dialerIn returns a DialContext that connects from inside the named namespace.
func dialerIn(name string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var c net.Conn
		err := inNetns(name, func() (err error) {
			c, err = (&net.Dialer{}).DialContext(ctx, network, addr)
			return err
		})
		return c, err
	}
}
