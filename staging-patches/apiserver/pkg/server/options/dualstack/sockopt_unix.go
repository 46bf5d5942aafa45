//go:build unix

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
