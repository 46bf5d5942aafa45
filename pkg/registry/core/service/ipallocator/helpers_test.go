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

package ipallocator

import (
	"bytes"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"

	"k8s.io/klog/v2"
	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/pkg/registry/core/service/allocator"
	"github.com/netfork/netfork/pkg/registry/core/service/allocator/storage/storagetest"
)

// TestMain stops the embedded etcd the seam tests start on first use.
func TestMain(m *testing.M) {
	os.Exit(storagetest.Main(m))
}

// mustCIDR parses a CIDR fixture.
func mustCIDR(t testing.TB, s string) *net.IPNet {
	t.Helper()
	_, cidr, err := netutils.ParseCIDRSloppy(s)
	if err != nil {
		t.Fatalf("ParseCIDR(%q): %v", s, err)
	}
	return cidr
}

// newTestRange is an in-memory Range over cidr with a fixed random seed, so a failing test replays.
func newTestRange(t testing.TB, cidr string) *Range {
	t.Helper()
	r, err := New(mustCIDR(t, cidr), func(size int, rangeSpec string, band int) (upstreamallocator.Interface, error) {
		return allocator.NewAllocationMap(size, rangeSpec, band, allocator.WithRandSource(rand.NewPCG(1, 2)))
	})
	if err != nil {
		t.Fatalf("New(%s): %v", cidr, err)
	}
	return r
}

// newUpstreamRange is upstream's in-memory Range over cidr, to compare with.
func newUpstreamRange(t testing.TB, cidr string) *upstreamipallocator.Range {
	t.Helper()
	r, err := upstreamipallocator.NewInMemory(mustCIDR(t, cidr))
	if err != nil {
		t.Fatalf("upstream NewInMemory(%s): %v", cidr, err)
	}
	return r
}

// ip parses an address fixture.
func ip(t testing.TB, s string) net.IP {
	t.Helper()
	parsed := netutils.ParseIPSloppy(s)
	if parsed == nil {
		t.Fatalf("ParseIP(%q) failed", s)
	}
	return parsed
}

// addr is ip as a netip.Addr, IPv4 in 4-byte form, for ordering.
func addr(t testing.TB, ip net.IP) netip.Addr {
	t.Helper()
	a, ok := netip.AddrFromSlice(ip)
	if !ok {
		t.Fatalf("%v is not an address", ip)
	}
	return a.Unmap()
}

// between tells whether ip is in [lo, hi].
func between(t testing.TB, ip net.IP, lo, hi string) bool {
	t.Helper()
	a := addr(t, ip)
	return addr(t, netutils.ParseIPSloppy(lo)).Compare(a) <= 0 && a.Compare(addr(t, netutils.ParseIPSloppy(hi))) <= 0
}

// mustMap is an empty allocation map for rangeSpec, for bindings that only read or seed etcd.
func mustMap(t testing.TB, rangeSpec string) *allocator.AllocationMap {
	t.Helper()
	m, err := allocator.NewAllocationMap(0, rangeSpec, 0)
	if err != nil {
		t.Fatalf("NewAllocationMap: %v", err)
	}
	return m
}

// testLogs is what klog wrote during a test, see captureLogs.
type testLogs struct{ buf *lockedBuffer }

// lockedBuffer is a buffer klog and the test may use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// captureLogs sends klog's text output to a buffer until the test ends, for
// code that logs through klog.Background(). It changes klog's output, which
// klog guards with its own lock, and not its logger: klog.SetLogger and
// ClearLogger race with the embedded etcd's gRPC goroutines, which log through
// klog the whole time. Tests that use it must not run in parallel with others,
// which would log into the same buffer.
func captureLogs(t *testing.T) testLogs {
	buf := &lockedBuffer{}
	klog.LogToStderr(false)
	klog.SetOutput(buf)
	t.Cleanup(func() {
		klog.SetOutput(os.Stderr)
		klog.LogToStderr(true)
	})
	return testLogs{buf: buf}
}

// lines are the logged lines that contain substr.
func (l testLogs) lines(substr string) []string {
	var out []string
	for _, line := range strings.Split(l.buf.String(), "\n") {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return out
}
