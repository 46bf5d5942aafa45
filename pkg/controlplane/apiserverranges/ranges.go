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

package apiserverranges

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Annotation is the identity Lease annotation that holds the ranges.
const Annotation = "netfork.io/service-cluster-ip-range"

// Format is the annotation's value for the primary and, when set, secondary range.
func Format(primary, secondary net.IPNet) string {
	if secondary.IP == nil {
		return primary.String()
	}
	return primary.String() + "," + secondary.String()
}

// Parse reads a comma-separated list of one or two CIDRs, primary first, into
// its canonical form, so values written differently compare equal.
func Parse(value string) ([]netip.Prefix, error) {
	parts := strings.Split(value, ",")
	if len(parts) > 2 {
		return nil, fmt.Errorf("service cluster IP range %q: at most two CIDRs, one per family", value)
	}
	prefixes := make([]netip.Prefix, 0, len(parts))
	for _, s := range parts {
		p, err := netip.ParsePrefix(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("service cluster IP range %q: %w", value, err)
		}
		prefixes = append(prefixes, p.Masked())
	}
	return prefixes, nil
}

// canonical is value's canonical form, or value itself when it does not parse.
func canonical(value string) string {
	prefixes, err := Parse(value)
	if err != nil {
		return value
	}
	s := make([]string, len(prefixes))
	for i, p := range prefixes {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}
