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

package registrytest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// LeakGraceStep is one pass of a repair loop over a bitmap that holds Service
// a's value and a leaked one: whether a Service taking the leaked value is
// created or deleted before the pass, whether the pass's Service list fails,
// whether the leaked value is still held after it, and the leaks counted by then.
type LeakGraceStep struct {
	CreateTaker, DeleteTaker bool
	FailList                 bool
	WantHeld                 bool
	WantLeaks                float64
}

// LeakGraceCase is a named sequence of passes.
type LeakGraceCase struct {
	Name  string
	Steps []LeakGraceStep
}

// LeakGraceCases are upstream's grace for a leak (released on the third pass
// that finds it unused, counted once) and netfork's two rules on top: a failed
// pass does not count, and a Service using the value restarts the grace.
func LeakGraceCases() []LeakGraceCase {
	return []LeakGraceCase{
		{
			Name:  "released on the third pass",
			Steps: []LeakGraceStep{{WantHeld: true}, {WantHeld: true}, {WantLeaks: 1}, {WantLeaks: 1}},
		},
		{
			Name:  "a failed pass does not count",
			Steps: []LeakGraceStep{{WantHeld: true}, {FailList: true, WantHeld: true}, {WantHeld: true}, {WantLeaks: 1}},
		},
		{
			Name: "a Service using the leaked value restarts the grace",
			Steps: []LeakGraceStep{
				{WantHeld: true},
				{CreateTaker: true, WantHeld: true},
				{DeleteTaker: true, WantHeld: true},
				{WantHeld: true},
				{WantLeaks: 1},
			},
		},
	}
}

// LeakGrace is one repair loop run through a LeakGraceCase.
type LeakGrace struct {
	// Client is the loop's API; Run makes its Service lists fail on FailList steps.
	Client *fake.Clientset
	// Taker is a Service that uses the leaked value.
	Taker *corev1.Service
	// Pass runs one pass of the loop.
	Pass func(context.Context) error
	// Held reads the stored bitmap: whether it holds the leaked value, and Service a's.
	Held func() (leaked, kept bool)
	// Leaks reads the loop's leak counter.
	Leaks func() float64
}

// Run runs one pass per step and checks what each left behind.
func (g LeakGrace) Run(t *testing.T, steps []LeakGraceStep) {
	t.Helper()
	ctx := context.Background()
	var failList atomic.Bool
	g.Client.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		if failList.Load() {
			return true, nil, apierrors.NewInternalError(errors.New("etcd unavailable"))
		}
		return false, nil, nil
	})
	services := g.Client.CoreV1().Services(g.Taker.Namespace)
	for i, s := range steps {
		if s.CreateTaker {
			if _, err := services.Create(ctx, g.Taker, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if s.DeleteTaker {
			if err := services.Delete(ctx, g.Taker.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		failList.Store(s.FailList)
		if err := g.Pass(ctx); (err != nil) != s.FailList {
			t.Fatalf("pass %d: error = %v, want error %v", i+1, err, s.FailList)
		}
		leaked, kept := g.Held()
		if leaked != s.WantHeld {
			t.Errorf("pass %d: leaked value allocated = %v, want %v", i+1, leaked, s.WantHeld)
		}
		if !kept {
			t.Errorf("pass %d: Service a's value released", i+1)
		}
		if got := g.Leaks(); got != s.WantLeaks {
			t.Errorf("pass %d: leaks counted = %v, want %v", i+1, got, s.WantLeaks)
		}
	}
}
