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

package ranges

import (
	"strings"
	"testing"
)

func TestExtraCIDRsAreDisjointFromTheDefault(t *testing.T) {
	for _, i := range []int{0, 1, 999, MaxExtraCIDRs - 1} {
		got := ExtraCIDR(i)
		if got.Bits() != ExtraCIDRBits || strings.HasPrefix(got.String(), "10.96.") {
			t.Errorf("ExtraCIDR(%d) = %s", i, got)
		}
	}
	if got := ExtraCIDR(257).String(); got != "10.129.1.0/24" {
		t.Errorf("ExtraCIDR(257) = %s, want 10.129.1.0/24", got)
	}
	if got := ExtraCIDR(MaxExtraCIDRs - 1).String(); got != "10.143.255.0/24" {
		t.Errorf("the last extra CIDR is %s, want 10.143.255.0/24, the end of 10.128.0.0/12", got)
	}
}
