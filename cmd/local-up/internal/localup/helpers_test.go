package localup

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// fakeAPIServer writes a script standing in for kube-apiserver: it rejects a feature gate
// named Bad the way kube-apiserver rejects unknown gates and otherwise prints a version.
func fakeAPIServer(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kube-apiserver")
	script := `#!/bin/sh
for a in "$@"; do
  case "$a" in
    --feature-gates=Bad*) echo 'I1121 started' >&2; echo 'Error: invalid argument "Bad=true" for "--feature-gates" flag: unrecognized feature gate: Bad' >&2; exit 1;;
  esac
done
echo "Kubernetes v1.37.1-fake"
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// occupy listens on addr until the test ends.
func occupy(t *testing.T, addr string) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening on %s: %v", addr, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// freePort returns a port that was free on every 127.0.0.x a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l := occupy(t, "127.0.0.1:0")
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// testOptions are options for a plan against the fake apiserver in a fresh data dir.
func testOptions(t *testing.T) *Options {
	t.Helper()
	o := NewOptions()
	o.APIServerBinary = fakeAPIServer(t)
	o.DataDir = filepath.Join(t.TempDir(), "data")
	o.Port = freePort(t)
	return o
}

// portString formats a port for addresses in tests.
func portString(port int) string {
	return strconv.Itoa(port)
}
