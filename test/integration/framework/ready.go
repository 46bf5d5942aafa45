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

package framework

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/netfork/netfork/internal/proc"
)

// readyTimeout bounds an apiserver's start; a cold 2-core machine needs tens of seconds.
const readyTimeout = 2 * time.Minute

// exitStatus records how an in-process server's run ended; err is set before done closes.
type exitStatus struct {
	done chan struct{}
	err  error
}

func (e *exitStatus) exit(err error) {
	e.err = err
	close(e.done)
}

// waitReady waits for s's /readyz, failing the test early when exits fires.
func waitReady(t testing.TB, s *APIServer, exits proc.ReadyOption) {
	t.Helper()
	if err := proc.WaitReady(context.Background(), s.Config, proc.Interval(100*time.Millisecond), proc.Timeout(readyTimeout), exits); err != nil {
		t.Fatalf("framework: apiserver at %s: %v", s.Config.Host, err)
	}
}

// exitsOn fails a readiness wait once an in-process server's run has ended.
func (e *exitStatus) exitsOn() proc.ReadyOption {
	return proc.FailsOn(e.done, func() error { return fmt.Errorf("exited before it was ready: %v", e.err) })
}
