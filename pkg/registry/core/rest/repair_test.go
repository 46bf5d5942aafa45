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

package rest

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunRepairLoops(t *testing.T) {
	succeedAfter := func(d time.Duration, stopped *atomic.Int32) func(func(), chan struct{}) {
		return func(onFirstSuccess func(), stopCh chan struct{}) {
			select {
			case <-time.After(d):
				onFirstSuccess()
				onFirstSuccess() // later passes call it again; it must count once
			case <-stopCh:
			}
			<-stopCh
			stopped.Add(1)
		}
	}
	never := func(stopped *atomic.Int32) func(func(), chan struct{}) {
		return func(_ func(), stopCh chan struct{}) {
			<-stopCh
			stopped.Add(1)
		}
	}

	tests := []struct {
		name    string
		loops   func(*atomic.Int32) []func(func(), chan struct{})
		cancel  bool
		wantErr string
	}{
		{
			name: "both loops pass once",
			loops: func(s *atomic.Int32) []func(func(), chan struct{}) {
				return []func(func(), chan struct{}){succeedAfter(0, s), succeedAfter(10*time.Millisecond, s)}
			},
		},
		{
			name: "one loop never passes",
			loops: func(s *atomic.Int32) []func(func(), chan struct{}) {
				return []func(func(), chan struct{}){succeedAfter(0, s), never(s)}
			},
			wantErr: "(timeout)",
		},
		{
			name: "apiserver stops before the first pass",
			loops: func(s *atomic.Int32) []func(func(), chan struct{}) {
				return []func(func(), chan struct{}){never(s)}
			},
			cancel:  true,
			wantErr: "(context cancelled)", //nolint:misspell // upstream's words
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			if tc.cancel {
				cancel()
			}
			var stopped atomic.Int32
			loops := tc.loops(&stopped)
			err := runRepairLoops(ctx, 200*time.Millisecond, loops...)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("runRepairLoops: %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("runRepairLoops error = %v, want one containing %q", err, tc.wantErr)
			}
			if !tc.cancel && stopped.Load() != 0 {
				t.Fatalf("%d loops stopped while the apiserver still runs", stopped.Load())
			}
			cancel()
			deadline := time.Now().Add(5 * time.Second)
			for stopped.Load() != int32(len(loops)) {
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d loops stopped after the apiserver stopped", stopped.Load(), len(loops))
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}
