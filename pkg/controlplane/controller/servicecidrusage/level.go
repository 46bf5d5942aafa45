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

package servicecidrusage

import (
	"fmt"
	"net/netip"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
)

const (
	// ConditionType is netfork's ServiceCIDR condition; domain-prefixed, so
	// upstream clients and apiservers keep it as any other condition.
	ConditionType = "netfork.io/NearlyFull"

	// ReasonFull (True): a CIDR has no free address.
	ReasonFull = "Full"
	// ReasonNearlyFull (True): a CIDR has SetPercent % or more of its addresses used.
	ReasonNearlyFull = "NearlyFull"
	// ReasonHasRoom (False): every CIDR is below ClearPercent % again.
	ReasonHasRoom = "HasRoom"

	// SetPercent is the share of used addresses that sets the condition.
	SetPercent = 90
	// ClearPercent is the share below which it is cleared; the gap keeps it from flapping.
	ClearPercent = 85
)

// level is how full a ServiceCIDR is, as its condition says.
type level int

const (
	hasRoom level = iota
	nearlyFull
	full
)

// levelOf is the level cidr's condition records; none is hasRoom.
func levelOf(c *metav1.Condition) level {
	switch {
	case c == nil || c.Status != metav1.ConditionTrue:
		return hasRoom
	case c.Reason == ReasonFull:
		return full
	default:
		return nearlyFull
	}
}

// next is the level of one CIDR with usage u when the ServiceCIDR is at cur.
func next(cur level, u ipallocator.Usage) level {
	if u.Free == 0 {
		return full
	}
	switch share := usedPercent(u); {
	case share >= SetPercent && cur == full:
		return full
	case share >= SetPercent:
		return nearlyFull
	case share >= ClearPercent && cur > hasRoom:
		return nearlyFull
	default:
		return hasRoom
	}
}

// usedPercent is the share of u's usable addresses in use, in percent.
func usedPercent(u ipallocator.Usage) float64 {
	if u.Usable == 0 {
		return 100
	}
	return 100 * float64(u.Usable-min(u.Free, u.Usable)) / float64(u.Usable)
}

// cidrUsage is one CIDR of a ServiceCIDR with its usage.
type cidrUsage struct {
	prefix netip.Prefix
	usage  ipallocator.Usage
}

// worst is the level of a ServiceCIDR at cur whose CIDRs are cidrs, and the
// CIDR that decides it (the fullest at that level).
func worst(cur level, cidrs []cidrUsage) (level, cidrUsage) {
	var (
		top level
		by  cidrUsage
	)
	for i, c := range cidrs {
		l := next(cur, c.usage)
		if i == 0 || l > top || (l == top && usedPercent(c.usage) > usedPercent(by.usage)) {
			top, by = l, c
		}
	}
	return top, by
}

// condition is the condition, reason and message for level l decided by c.
func condition(l level, c cidrUsage) (metav1.ConditionStatus, string, string) {
	used := c.usage.Usable - min(c.usage.Free, c.usage.Usable)
	counts := fmt.Sprintf("%s: %d of %d addresses used (%.0f%%), %d free", c.prefix, used, c.usage.Usable, usedPercent(c.usage), c.usage.Free)
	switch l {
	case full:
		return metav1.ConditionTrue, ReasonFull, counts + "; no ClusterIP can be allocated from it"
	case nearlyFull:
		return metav1.ConditionTrue, ReasonNearlyFull, fmt.Sprintf("%s; at least %d%% used", counts, SetPercent)
	default:
		return metav1.ConditionFalse, ReasonHasRoom, fmt.Sprintf("%s; below %d%% used", counts, ClearPercent)
	}
}
