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
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

// Change is one Service a run changed, or would change.
type Change struct {
	Namespace string
	Name      string
	OldPolicy corev1.IPFamilyPolicy
	NewPolicy corev1.IPFamilyPolicy
	// OldIPs and NewIPs are its ClusterIPs before and after ("None" when headless).
	OldIPs []string
	NewIPs []string
}

// String is the line a run prints for c.
func (c Change) String() string {
	return fmt.Sprintf("%s/%s: %s [%s] -> %s [%s]", c.Namespace, c.Name, orDash(string(c.OldPolicy)), strings.Join(c.OldIPs, " "),
		orDash(string(c.NewPolicy)), strings.Join(c.NewIPs, " "))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// conversion is one direction: which Services it selects, what it sets,
// and what the apiserver's answer must look like.
type conversion struct {
	// name is the command, for the printed lines.
	name string
	// families is how many IP families a selected Service has.
	families int
	// apply sets the new IP family fields on a copy of a selected Service.
	apply func(*corev1.Service)
	// done tells whether the apiserver's answer has the new shape.
	done func(*corev1.Service) bool
	// unchanged is the summary when nothing is selected.
	unchanged string
	// stuck ends the error that names the Services whose answer was not done.
	stuck string
	// projected are the ClusterIPs a client dry run prints for the new shape.
	projected func(*corev1.Service) []string
}

// stuckError is an update the apiserver answered without the new shape,
// or refused for lack of a range; its text says how.
type stuckError struct{ how string }

func (e *stuckError) Error() string { return e.how }

// DualStack gives every selected Service with one IP family the other one
// too, with ipFamilyPolicy Options.Policy, in place, and returns what it changed.
func (r *Runner) DualStack(ctx context.Context) ([]Change, error) {
	if err := r.refuseRenumber(ctx); err != nil {
		return nil, err
	}
	if err := r.refuseSingleDefault(ctx); err != nil {
		return nil, err
	}
	policy := r.opts.Policy
	return r.convert(ctx, conversion{
		name:     "dual-stack",
		families: 1,
		apply: func(svc *corev1.Service) {
			svc.Spec.IPFamilyPolicy = &policy
			svc.Spec.IPFamilies = []corev1.IPFamily{svc.Spec.IPFamilies[0], otherFamily(svc.Spec.IPFamilies[0])}
		},
		done: func(svc *corev1.Service) bool {
			return len(svc.Spec.IPFamilies) == 2 && (headless(svc) || len(svc.Spec.ClusterIPs) == 2)
		},
		unchanged: "every selected Service has two IP families (or none: ExternalName)",
		stuck:     "the apiserver that answered serves one Service range: roll every apiserver to two ranges, then run dual-stack again",
		projected: func(svc *corev1.Service) []string {
			if headless(svc) {
				return svc.Spec.ClusterIPs
			}
			return append(append([]string(nil), svc.Spec.ClusterIPs...), "+"+string(otherFamily(svc.Spec.IPFamilies[0])))
		},
	})
}

// SingleStack sets ipFamilyPolicy SingleStack on every selected Service
// with two IP families, in place; the apiserver keeps its primary ClusterIP
// and family and releases the secondary. It returns what it changed.
func (r *Runner) SingleStack(ctx context.Context) ([]Change, error) {
	if err := r.refuseRenumber(ctx); err != nil {
		return nil, err
	}
	single := corev1.IPFamilyPolicySingleStack
	return r.convert(ctx, conversion{
		name:     "single-stack",
		families: 2,
		apply:    func(svc *corev1.Service) { svc.Spec.IPFamilyPolicy = &single },
		done: func(svc *corev1.Service) bool {
			return len(svc.Spec.IPFamilies) == 1 && len(svc.Spec.ClusterIPs) <= 1
		},
		unchanged: "every selected Service has one IP family (or none: ExternalName)",
		stuck:     "the apiserver that answered kept the secondary family: check that every apiserver is netfork's or upstream's 1.37 and run single-stack again",
		projected: func(svc *corev1.Service) []string { return svc.Spec.ClusterIPs[:1] },
	})
}

// convert runs cv over the selected Services, one update each, and fails at
// the end naming every Service whose answer was not converted.
func (r *Runner) convert(ctx context.Context, cv conversion) ([]Change, error) {
	svcs, err := r.listServices(ctx, cv.families)
	if err != nil {
		return nil, err
	}
	suffix := map[DryRun]string{DryRunClient: " (dry run)", DryRunServer: " (server dry run)"}[r.opts.DryRun]
	var changes []Change
	var stuck []string
	var why *stuckError
	for i := range svcs {
		c, err := r.convertOne(ctx, &svcs[i], cv)
		var s *stuckError
		switch {
		case errors.As(err, &s):
			stuck = append(stuck, key(&svcs[i]))
			if why == nil {
				why = s
			}
			continue
		case err != nil:
			return changes, err
		case c == nil:
			continue
		}
		changes = append(changes, *c)
		fmt.Fprintf(r.opts.Log, "%s%s\n", c, suffix)
	}
	if len(stuck) > 0 {
		return changes, fmt.Errorf("the Services %s were not converted (the first %s): %s", renumber.ListSome(stuck, 10), why, cv.stuck)
	}
	switch {
	case len(changes) == 0:
		fmt.Fprintf(r.opts.Log, "%s: nothing to change: %s\n", cv.name, cv.unchanged)
	case r.opts.DryRun != DryRunNone:
		fmt.Fprintf(r.opts.Log, "%s: %d Services would change%s\n", cv.name, len(changes), suffix)
	default:
		fmt.Fprintf(r.opts.Log, "%s: %d Services changed\n", cv.name, len(changes))
	}
	return changes, nil
}

// convertOne updates one Service with cv, reading it again after a
// conflict; nil when it is gone or no longer selected by then.
func (r *Runner) convertOne(ctx context.Context, svc *corev1.Service, cv conversion) (*Change, error) {
	svcs := r.client.CoreV1().Services(svc.Namespace)
	var change *Change
	live := svc
	first := true
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if !first {
			got, err := svcs.Get(ctx, svc.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				live = nil
				return nil
			}
			if err != nil {
				return err
			}
			live = got
		}
		first = false
		if live.UID != svc.UID || !eligible(live) || len(live.Spec.IPFamilies) != cv.families {
			live = nil
			return nil
		}
		u := live.DeepCopy()
		cv.apply(u)
		if r.opts.DryRun == DryRunClient {
			change = changeOf(live, u.Spec.IPFamilyPolicy, cv.projected(live))
			return nil
		}
		updated, err := svcs.Update(ctx, u, metav1.UpdateOptions{FieldManager: renumber.FieldManager, DryRun: r.dryRunOptions()})
		switch {
		case oneRange(err):
			return &stuckError{"was refused: " + strings.TrimPrefix(err.Error(), "Service \""+svc.Name+"\" is invalid: ")}
		case err != nil:
			return err
		case !cv.done(updated):
			return &stuckError{fmt.Sprintf("came back %s with families %v and ClusterIPs [%s]", orDash(string(ptr.Deref(updated.Spec.IPFamilyPolicy, ""))), updated.Spec.IPFamilies, strings.Join(updated.Spec.ClusterIPs, " "))}
		}
		change = changeOf(live, updated.Spec.IPFamilyPolicy, updated.Spec.ClusterIPs)
		return nil
	})
	var stuck *stuckError
	if err != nil && !errors.As(err, &stuck) {
		return nil, fmt.Errorf("updating Service %s: %w", key(svc), err)
	}
	return change, err
}

// oneRange tells whether err is the registry refusing a family its
// apiserver has no range of.
func oneRange(err error) bool {
	return apierrors.IsInvalid(err) && (strings.Contains(err.Error(), "not configured on this cluster") ||
		strings.Contains(err.Error(), "not configured for dual-stack"))
}

func changeOf(old *corev1.Service, policy *corev1.IPFamilyPolicy, ips []string) *Change {
	return &Change{
		Namespace: old.Namespace, Name: old.Name,
		OldPolicy: ptr.Deref(old.Spec.IPFamilyPolicy, ""), NewPolicy: ptr.Deref(policy, ""),
		OldIPs: old.Spec.ClusterIPs, NewIPs: ips,
	}
}
