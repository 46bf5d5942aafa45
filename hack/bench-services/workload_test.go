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
