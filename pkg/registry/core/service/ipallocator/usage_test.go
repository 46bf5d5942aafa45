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
	"context"
	"net/netip"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"
)

func TestCIDRAllocatorUsage(t *testing.T) {
	f := newCIDRFixture(t, "10.0.0.0/28", []runtime.Object{
		serviceCIDR("kubernetes", 1, "10.0.0.0/28"),
		// the network address: used, but never a free one
		ipAddressFor("10.0.0.0", "odd"),
		ipAddressFor("10.0.0.3", "existing"),
	})
	usage := func(prefix string) Usage {
		t.Helper()
		u, ok := f.alloc.Usage(netip.MustParsePrefix(prefix))
		if !ok {
			t.Fatalf("Usage(%s) unknown", prefix)
		}
		return u
	}
	if got, want := usage("10.0.0.0/28"), (Usage{Used: 2, Usable: 14, Free: 13}); got != want {
		t.Errorf("Usage of the /28 with one IPAddress and its network address = %+v, want %+v", got, want)
	}
	for i := range 13 {
		f.allocateNext(t, svcName(i))
	}
	if got, want := usage("10.0.0.0/28"), (Usage{Used: 15, Usable: 14, Free: 0}); got != want {
		t.Errorf("Usage of the full /28 = %+v, want %+v", got, want)
	}
	if _, err := f.alloc.AllocateNext(); err == nil {
		t.Errorf("AllocateNext with Free 0 succeeded")
	}

	// A larger overlapping ServiceCIDR counts the same addresses again.
	if _, err := f.client.NetworkingV1().ServiceCIDRs().Create(context.Background(), serviceCIDR("bigger", 2, "10.0.0.0/27"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the /27 to be counted", func() bool {
		u, ok := f.alloc.Usage(netip.MustParsePrefix("10.0.0.0/27"))
		return ok && u == Usage{Used: 15, Usable: 30, Free: 30 - 14}
	})
	// 10.0.0.15, the /28's broadcast address, is a host of the /27.
	if err := f.alloc.Allocate(netIP("10.0.0.15")); err != nil {
		t.Fatal(err)
	}
	if got, want := usage("10.0.0.0/28"), (Usage{Used: 16, Usable: 14, Free: 0}); got != want {
		t.Errorf("Usage of the /28 after its broadcast address was taken = %+v, want %+v", got, want)
	}
	if got, want := usage("10.0.0.0/27"), (Usage{Used: 16, Usable: 30, Free: 15}); got != want {
		t.Errorf("Usage of the /27 = %+v, want %+v", got, want)
	}

	for _, prefix := range []string{"10.0.1.0/28", "fd00::/120"} {
		if u, ok := f.alloc.Usage(netip.MustParsePrefix(prefix)); ok {
			t.Errorf("Usage(%s), which no ServiceCIDR names, = %+v, want unknown", prefix, u)
		}
	}
}

func TestAllocatorsUsageByFamily(t *testing.T) {
	f := newCIDRFixture(t, "fd00::/120", []runtime.Object{serviceCIDR("kubernetes", 1, "10.0.0.0/28", "fd00::/120")})
	a := &Allocators{ByFamily: map[api.IPFamily]upstreamipallocator.Interface{api.IPv6Protocol: f.alloc}}
	if u, ok := a.Usage(netip.MustParsePrefix("fd00::/120")); !ok || u != (Usage{Usable: 255, Free: 255}) {
		t.Errorf("Usage of the IPv6 prefix = %+v, %v; want 255 free", u, ok)
	}
	if u, ok := a.Usage(netip.MustParsePrefix("10.0.0.0/28")); ok {
		t.Errorf("Usage of a family without allocator = %+v, want unknown", u)
	}
}
