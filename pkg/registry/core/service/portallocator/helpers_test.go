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

package portallocator

import (
	"math/rand/v2"
	"os"
	"testing"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
	upstreamportallocator "k8s.io/kubernetes/pkg/registry/core/service/portallocator"

	"github.com/netfork/netfork/pkg/registry/core/service/allocator"
	"github.com/netfork/netfork/pkg/registry/core/service/allocator/storage/storagetest"
)

// TestMain stops the embedded etcd the seam tests start on first use.
func TestMain(m *testing.M) {
	os.Exit(storagetest.Main(m))
}

// mustPortRange parses a port range fixture.
func mustPortRange(t testing.TB, s string) utilnet.PortRange {
	t.Helper()
	pr, err := utilnet.ParsePortRange(s)
	if err != nil {
		t.Fatalf("ParsePortRange(%q): %v", s, err)
	}
	return *pr
}

// newTestAllocator is an in-memory PortAllocator over pr with a fixed random seed, so a failing test replays.
func newTestAllocator(t testing.TB, pr string) *PortAllocator {
	t.Helper()
	a, err := New(mustPortRange(t, pr), func(size int, rangeSpec string, band int) (upstreamallocator.Interface, error) {
		return allocator.NewAllocationMap(size, rangeSpec, band, allocator.WithRandSource(rand.NewPCG(1, 2)))
	})
	if err != nil {
		t.Fatalf("New(%s): %v", pr, err)
	}
	return a
}

// newUpstreamAllocator is upstream's in-memory PortAllocator over pr, to compare with.
func newUpstreamAllocator(t testing.TB, pr string) *upstreamportallocator.PortAllocator {
	t.Helper()
	a, err := upstreamportallocator.NewInMemory(mustPortRange(t, pr))
	if err != nil {
		t.Fatalf("upstream NewInMemory(%s): %v", pr, err)
	}
	return a
}
