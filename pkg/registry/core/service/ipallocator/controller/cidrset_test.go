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

package controller

import (
	"net"
	"testing"

	networkinglisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/api/servicecidr"
)

func TestCIDRSetAnswersAsUpstream(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	add := func(name string, cidrs ...string) {
		t.Helper()
		if err := indexer.Add(newServiceCIDR(name, cidrs...)); err != nil {
			t.Fatal(err)
		}
	}
	add("kubernetes", "10.96.0.0/16", "fd00:10:96::/108")
	add("small", "10.200.0.0/24")
	add("overlap", "10.96.0.0/24") // its network address is inside the /16, not at its start
	add("extra-v6", "2001:db8::/64")
	lister := networkinglisters.NewServiceCIDRLister(indexer)
	set := newCIDRSet(lister)

	addresses := []string{
		"10.96.0.1", "10.96.255.254", "10.96.0.0", "10.96.255.255", "10.96.0.255", "10.97.0.1",
		"10.200.0.0", "10.200.0.1", "10.200.0.255", "10.200.1.1",
		"fd00:10:96::", "fd00:10:96::1", "fd00:10:96::f:ffff", "fd00:10:97::1",
		"2001:db8::", "2001:db8::ffff:ffff:ffff:ffff", "2001:db9::1",
		"::ffff:10.96.0.10", "::ffff:10.201.0.1",
	}
	check := func(when string) {
		t.Helper()
		for _, s := range addresses {
			ip := net.ParseIP(s)
			want := len(servicecidr.ContainsIP(lister, ip)) > 0
			if got := set.containsIP(ip); got != want {
				t.Errorf("%s: containsIP(%s) = %t, upstream's ContainsIP says %t", when, s, got, want)
			}
		}
	}
	check("first lookup")

	// A ServiceCIDR the set has not been told about yet: a miss asks the lister again.
	add("late", "10.97.0.0/16")
	if !set.containsIP(net.ParseIP("10.97.0.1")) {
		t.Error("an address of a ServiceCIDR added without an event is reported out of range")
	}
	set.invalidate()
	check("after a new ServiceCIDR")

	if err := indexer.Delete(newServiceCIDR("small")); err != nil {
		t.Fatal(err)
	}
	set.invalidate()
	check("after a deleted ServiceCIDR")
	if set.containsIP(net.ParseIP("10.200.0.1")) {
		t.Error("an address of a deleted ServiceCIDR is still in range after the event")
	}
}
