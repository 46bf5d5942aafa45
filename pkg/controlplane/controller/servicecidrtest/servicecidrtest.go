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

package servicecidrtest

import (
	"context"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
)

const (
	// Timeout bounds every wait for a controller to act.
	Timeout = 30 * time.Second
	// interval is how often a wait looks, gentle enough for a real apiserver.
	interval = 50 * time.Millisecond
)

// Eventually waits until the named ServiceCIDR exists and cond holds, and
// returns it; what says what was awaited when it fails.
func Eventually(t *testing.T, client kubernetes.Interface, name, what string, cond func(*networkingv1.ServiceCIDR) bool) *networkingv1.ServiceCIDR {
	t.Helper()
	var last *networkingv1.ServiceCIDR
	err := wait.PollUntilContextTimeout(context.Background(), interval, Timeout, true, func(ctx context.Context) (bool, error) {
		c, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = c
		return cond(c), nil
	})
	if err != nil {
		t.Fatalf("ServiceCIDR %s: %s did not happen; last seen finalizers=%v spec=%v status=%+v",
			name, what, last.GetFinalizers(), specOf(last), statusOf(last))
	}
	return last
}

// Events drains the events recorder was given so far.
func Events(recorder *events.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func specOf(c *networkingv1.ServiceCIDR) []string {
	if c == nil {
		return nil
	}
	return c.Spec.CIDRs
}

func statusOf(c *networkingv1.ServiceCIDR) networkingv1.ServiceCIDRStatus {
	if c == nil {
		return networkingv1.ServiceCIDRStatus{}
	}
	return c.Status
}
