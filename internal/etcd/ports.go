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

package etcd

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
)

// loopbackHost is the only address the embedded etcd listens on.
const loopbackHost = "127.0.0.1"

// freePort asks the kernel for a free loopback port; the caller retries if it is taken
// again before etcd binds it.
func freePort() (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(loopbackHost, "0"))
	if err != nil {
		return 0, fmt.Errorf("etcd: finding a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// checkFree fails with the address named when something already listens on it, so the
// user sees which port to free instead of etcd's nested listener error.
func checkFree(port int) error {
	addr := net.JoinHostPort(loopbackHost, strconv.Itoa(port))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		if isAddrInUse(err) {
			return &PortInUseError{Addr: addr}
		}
		return fmt.Errorf("etcd: listening on %s: %w", addr, err)
	}
	return l.Close()
}

// isAddrInUse reports whether err comes from binding an address that is taken.
func isAddrInUse(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE)
}

// PortInUseError says which loopback address etcd could not bind.
type PortInUseError struct {
	Addr string
}

// Error names the address so the message alone tells the user what to free.
func (e *PortInUseError) Error() string {
	return fmt.Sprintf("etcd: address %s is already in use", e.Addr)
}
