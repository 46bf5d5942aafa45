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
	"net"
	"path/filepath"
	"strconv"
	"testing"
)

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
