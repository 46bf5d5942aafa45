//go:build unix

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
	"syscall"

	"golang.org/x/sys/unix"

	"k8s.io/klog/v2"
)

// socketControl sets the sharing options before bind; like upstream it only
// warns when the kernel refuses one, so the flags mean the same on both paths.
func socketControl(opts ListenOptions) func(network, address string, c syscall.RawConn) error {
	if !opts.PermitPortSharing && !opts.PermitAddressSharing {
		return nil
	}
	// upstream-shim begin: k8s.io/apiserver/pkg/server/options/serving_unix.go permitPortReuse,permitAddressReuse
	return func(_, address string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) {
			if opts.PermitPortSharing {
				setSocketOption(fd, address, "SO_REUSEPORT", unix.SO_REUSEPORT)
			}
			if opts.PermitAddressSharing {
				setSocketOption(fd, address, "SO_REUSEADDR", unix.SO_REUSEADDR)
			}
		})
	}
}

func setSocketOption(fd uintptr, address, name string, option int) {
	if err := unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, option, 1); err != nil {
		klog.Warningf("failed to set %s on the socket for %s: %v", name, address, err)
	}
}

// upstream-shim end
