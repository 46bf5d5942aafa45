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

package localup

import (
	"fmt"
	"os"
	"path/filepath"
)

// binaryName is the apiserver executable local-up looks for.
const binaryName = "kube-apiserver"

// defaultBinary prefers a kube-apiserver installed next to local-up (as `make build` puts
// them side by side) and falls back to the build output of the working tree, which is where
// it is when local-up runs through `go run`.
func defaultBinary() string {
	if exe, err := os.Executable(); err == nil {
		candidate := filepath.Join(filepath.Dir(exe), binaryName)
		if isExecutableFile(candidate) {
			return candidate
		}
	}
	return filepath.Join("_output", "bin", binaryName)
}

// resolveBinary returns the absolute path of the kube-apiserver to run, or the error that
// tells the user how to get one.
func resolveBinary(flagValue string) (string, error) {
	path := flagValue
	if path == "" {
		path = defaultBinary()
	}
	if !isExecutableFile(path) {
		return "", fmt.Errorf("kube-apiserver binary not found at %s: run 'make build' or pass --apiserver-binary", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("--apiserver-binary %s: %w", path, err)
	}
	return abs, nil
}

// isExecutableFile reports whether path is a regular file someone may execute.
func isExecutableFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
}
