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

package family

import (
	"context"
	"fmt"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// pollInterval is how often a wait reads the ServiceCIDR again.
const pollInterval = 500 * time.Millisecond

// getCIDR is the ServiceCIDR name, nil when there is none.
func (r *Runner) getCIDR(ctx context.Context, name string) (*networkingv1.ServiceCIDR, error) {
	sc, err := r.client.NetworkingV1().ServiceCIDRs().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading ServiceCIDR %s: %w", name, err)
	}
	return sc, nil
}

// awaited says whether a ServiceCIDR (nil when there is none) is as a wait
// wants it and, when not, what it waits for.
type awaited func(sc *networkingv1.ServiceCIDR) (bool, string)

// ready is a ServiceCIDR whose Ready condition is True: the deletion
// controller counts only ready ones as covering an address.
func ready(sc *networkingv1.ServiceCIDR) (bool, string) {
	if sc == nil {
		return false, "to exist and be Ready (it is gone)"
	}
	c := readyCondition(sc)
	if c == nil {
		return false, "to be Ready (no Ready condition: is the ServiceCIDR controller running?)"
	}
	return c.Status == metav1.ConditionTrue, fmt.Sprintf("to be Ready (Ready=%s %s: %s)", c.Status, c.Reason, c.Message)
}

// recreatedSince is a ServiceCIDR that exists, is not being deleted and is
// not the object of UID gone: the apiservers made it again.
func recreatedSince(gone string) awaited {
	return func(sc *networkingv1.ServiceCIDR) (bool, string) {
		switch {
		case sc == nil:
			return false, "to be recreated by the apiservers from their --service-cluster-ip-range (it is gone)"
		case sc.DeletionTimestamp != nil || string(sc.UID) == gone:
			how := "no Ready condition"
			if c := readyCondition(sc); c != nil {
				how = fmt.Sprintf("Ready=%s %s: %s", c.Status, c.Reason, c.Message)
			}
			return false, fmt.Sprintf("to be released by the ServiceCIDR deletion controller and recreated (it is still being deleted, %s)", how)
		}
		return true, ""
	}
}

func readyCondition(sc *networkingv1.ServiceCIDR) *metav1.Condition {
	for i := range sc.Status.Conditions {
		if sc.Status.Conditions[i].Type == networkingv1.ServiceCIDRConditionReady {
			return &sc.Status.Conditions[i]
		}
	}
	return nil
}

// waitCIDR waits, at most Options.Timeout, until the ServiceCIDR name is as
// want wants it, and returns it; the error says what it waited for.
func (r *Runner) waitCIDR(ctx context.Context, name string, want awaited) (*networkingv1.ServiceCIDR, error) {
	var got *networkingv1.ServiceCIDR
	var why string
	err := wait.PollUntilContextTimeout(ctx, r.poll, r.opts.Timeout, true, func(ctx context.Context) (bool, error) {
		sc, err := r.getCIDR(ctx, name)
		if err != nil {
			return false, err
		}
		var ok bool
		got = sc
		ok, why = want(sc)
		return ok, nil
	})
	if err != nil && ctx.Err() == nil && why != "" {
		return nil, fmt.Errorf("after %s, still waiting for ServiceCIDR %s %s", r.opts.Timeout, name, why)
	}
	return got, err
}

// waitGone waits until the ServiceCIDR name no longer exists.
func (r *Runner) waitGone(ctx context.Context, name string) error {
	_, err := r.waitCIDR(ctx, name, func(sc *networkingv1.ServiceCIDR) (bool, string) {
		if sc == nil {
			return true, ""
		}
		return false, "to be released by the ServiceCIDR deletion controller (it is still being deleted)"
	})
	return err
}
