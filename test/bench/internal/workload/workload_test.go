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

package workload

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/netfork/netfork/test/bench/internal/ranges"
)

func TestNodePortsStopAtHalfTheRange(t *testing.T) {
	count := func(n int, headless bool) int {
		c := 0
		for i := range n {
			if benchService(i, Shape{Headless: headless}).Spec.Type == "NodePort" {
				c++
			}
		}
		return c
	}
	for _, tc := range []struct{ n, want int }{
		{1000, 500}, {30000, 15000}, {2 * ranges.MaxNodePorts, ranges.MaxNodePorts}, {100000, ranges.MaxNodePorts},
	} {
		if got := count(tc.n, false); got != tc.want {
			t.Errorf("%d Services hold %d NodePorts, want %d", tc.n, got, tc.want)
		}
	}
	if got := count(1000, true); got != 0 {
		t.Errorf("the headless floor holds %d NodePorts, want none", got)
	}
}

func TestRunPhaseKeepsThePace(t *testing.T) {
	calls := 0
	var mu sync.Mutex
	op := func(context.Context, int, int) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		return nil
	}
	// At 50 per second with a burst of one, the 6th call is handed out no sooner than
	// 5 intervals of 20ms after the first, however fast the machine is.
	p := runPhase(context.Background(), 6, 4, 50, op)
	if calls != 6 || p.Failures != 0 {
		t.Fatalf("%d calls, %d failures; want 6 and none", calls, p.Failures)
	}
	if p.elapsed < 100*time.Millisecond {
		t.Errorf("6 calls at 50/s took %s, under the 100ms the pace allows", p.elapsed)
	}
}

func TestRunPhaseStopsPacingWhenCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	p := runPhase(ctx, 1000, 1, 0.5, func(context.Context, int, int) error {
		calls++
		cancel() // The next call would wait 2s for the limiter; the canceled context ends it.
		return nil
	})
	if calls != 1 || p.FirstFailure == nil {
		t.Errorf("a canceled paced phase made %d calls with error %v; want 1 and the context's error", calls, p.FirstFailure)
	}
}

func TestPerSecondCountsEveryCall(t *testing.T) {
	p := Phase{elapsed: 2 * time.Second, Latencies: make([]time.Duration, 10), Failures: 10}
	if got := p.PerSecond(20); got != 10 {
		t.Errorf("PerSecond = %v, want 10", got)
	}
	if got := (Phase{}).PerSecond(20); got != 0 {
		t.Errorf("PerSecond of an empty phase = %v, want 0", got)
	}
}

func TestDualStackShapeMakesEveryThirdServicePreferDualStack(t *testing.T) {
	dual := 0
	for i := range 30 {
		if benchService(i, Shape{DualStack: true}).Spec.IPFamilyPolicy != nil {
			dual++
		}
		if benchService(i, Shape{}).Spec.IPFamilyPolicy != nil || benchService(i, Shape{Headless: true, DualStack: true}).Spec.IPFamilyPolicy != nil {
			t.Fatalf("Service %d asks for a family policy without DualStack, or headless", i)
		}
	}
	if dual != 10 {
		t.Errorf("%d of 30 Services are PreferDualStack, want 10", dual)
	}
}

func TestRunPhaseRecordsEveryCallsEnd(t *testing.T) {
	p := runPhase(context.Background(), 20, 3, 0, func(_ context.Context, _, i int) error {
		if i%4 == 0 {
			return errors.New("planted")
		}
		return nil
	})
	if len(p.Ends) != 20 || len(p.Latencies) != 15 {
		t.Fatalf("%d ends and %d latencies for 20 calls of which 5 failed; want 20 and 15", len(p.Ends), len(p.Latencies))
	}
	if curve := p.Curve(); len(curve) != 10 {
		t.Errorf("the curve of 20 calls has %d parts, want 10", len(curve))
	}
}
