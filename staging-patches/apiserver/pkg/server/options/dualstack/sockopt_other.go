//go:build !unix

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
	"syscall"
)

// socketControl refuses the sharing options where netfork cannot set them, as upstream does on Windows.
func socketControl(opts ListenOptions) func(network, address string, c syscall.RawConn) error {
	if !opts.PermitPortSharing && !opts.PermitAddressSharing {
		return nil
	}
	// upstream-shim begin: k8s.io/apiserver/pkg/server/options/serving_windows.go permitPortReuse,permitAddressReuse
	return func(string, string, syscall.RawConn) error {
		return errors.New("port and address sharing are not supported on this platform")
	}
	// upstream-shim end
}
