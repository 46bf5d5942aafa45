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
	"net/netip"
	"sync"

	"k8s.io/apimachinery/pkg/labels"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/kubernetes/pkg/api/servicecidr"
)

// cidrSet tells whether an address lies in some ServiceCIDR as upstream's
// servicecidr.ContainsIP does, which lists and parses every ServiceCIDR on
// each call: with 1000 ServiceCIDRs that was a tenth of the apiserver's CPU
// in a Service create storm, once per Service. The set keeps the parsed
// prefixes by length, rebuilt from the lister after a ServiceCIDR event, so
// a lookup costs one map access per distinct prefix length. A miss is checked
// against the lister again before anyone reports it, so a set that has not
// seen the newest ServiceCIDR yet never causes a false report.
type cidrSet struct {
	lister networkinglisters.ServiceCIDRLister

	mu    sync.Mutex
	stale bool
	// byBits holds, per prefix length, the masked prefixes of that length.
	byBits map[int]map[netip.Prefix]struct{}
}

func newCIDRSet(lister networkinglisters.ServiceCIDRLister) *cidrSet {
	return &cidrSet{lister: lister, stale: true}
}

// invalidate makes the next lookup rebuild the set; ServiceCIDR events call it.
func (c *cidrSet) invalidate() {
	c.mu.Lock()
	c.stale = true
	c.mu.Unlock()
}

// containsIP is whether ip is in some ServiceCIDR, not being its network
// address (or, for IPv4, its broadcast address), as upstream counts it.
func (c *cidrSet) containsIP(ip net.IP) bool {
	addr := servicecidr.IPToAddr(ip)
	if !addr.IsValid() {
		return false
	}
	if c.lookup(addr) {
		return true
	}
	return len(servicecidr.ContainsAddress(c.lister, addr)) > 0
}

func (c *cidrSet) lookup(addr netip.Addr) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stale {
		c.rebuildLocked()
	}
	for bits, prefixes := range c.byBits {
		p, err := addr.Prefix(bits)
		if err != nil {
			continue // another family's length
		}
		if _, ok := prefixes[p]; ok && servicecidr.PrefixContainsIP(p, addr) {
			return true
		}
	}
	return false
}

func (c *cidrSet) rebuildLocked() {
	c.byBits = map[int]map[netip.Prefix]struct{}{}
	c.stale = false
	list, err := c.lister.List(labels.Everything())
	if err != nil {
		c.stale = true
		return
	}
	for _, sc := range list {
		for _, s := range sc.Spec.CIDRs {
			p, err := netip.ParsePrefix(s)
			if err != nil {
				continue // validation refuses it; upstream skips it too
			}
			p = p.Masked()
			if c.byBits[p.Bits()] == nil {
				c.byBits[p.Bits()] = map[netip.Prefix]struct{}{}
			}
			c.byBits[p.Bits()][p] = struct{}{}
		}
	}
}
