//go:build !unix

package dualstack

import (
	"errors"
	"syscall"
)

// socketControl refuses the sharing options where netfork cannot set them, as upstream does on Windows.
func socketControl(opts ListenOptions) func(network, address string, c syscall.RawConn) error {
	if !opts.PermitPortSharing && !opts.PermitAddressSharing {
		return nil
	}
	return func(string, string, syscall.RawConn) error {
		return errors.New("port and address sharing are not supported on this platform")
	}
}
