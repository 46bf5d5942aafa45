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
