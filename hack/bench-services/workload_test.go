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

package main

import "testing"

func TestNodePortsStopAtHalfTheRange(t *testing.T) {
	count := func(n int, headless bool) int {
		c := 0
		for i := range n {
			if benchService(i, headless).Spec.Type == "NodePort" {
				c++
			}
		}
		return c
	}
	for _, tc := range []struct{ n, want int }{
		{1000, 500}, {30000, 15000}, {2 * maxNodePorts, maxNodePorts}, {100000, maxNodePorts},
	} {
		if got := count(tc.n, false); got != tc.want {
			t.Errorf("%d Services hold %d NodePorts, want %d", tc.n, got, tc.want)
		}
	}
	if got := count(1000, true); got != 0 {
		t.Errorf("the headless floor holds %d NodePorts, want none", got)
	}
}
