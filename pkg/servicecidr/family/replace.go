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
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

const (
	// HoldName is the ServiceCIDR that keeps the `kubernetes` ServiceCIDR's
	// primary CIDR covered while that one is deleted and recreated.
	HoldName = "servicecidr-hold"
	// ManagedByLabel marks the ServiceCIDRs the plugin creates; its value is renumber.FieldManager.
	ManagedByLabel = "app.kubernetes.io/managed-by"
)

// ReplaceDefault replaces a `kubernetes` ServiceCIDR of two CIDRs with the
// one-CIDR one the apiservers, rolled to one range, recreate: it refuses
// while an address of the secondary CIDR is in use, covers the primary CIDR
// with the hold, deletes `kubernetes`, waits until it is back with one CIDR,
// and deletes the hold. It continues from whatever step a previous run reached.
func (r *Runner) ReplaceDefault(ctx context.Context) error {
	def, err := r.getCIDR(ctx, renumber.DefaultServiceCIDRName)
	if err != nil {
		return err
	}
	hold, err := r.getCIDR(ctx, HoldName)
	if err != nil {
		return err
	}
	if hold != nil && hold.Labels[ManagedByLabel] != renumber.FieldManager {
		return fmt.Errorf("ServiceCIDR %s exists without label %s=%s: it is not the plugin's hold; rename or delete it", HoldName, ManagedByLabel, renumber.FieldManager)
	}
	if r.opts.DryRun != DryRunNone {
		return r.planReplace(ctx, def, hold)
	}
	switch {
	case def != nil && def.DeletionTimestamp == nil && len(def.Spec.CIDRs) == 1 && hold == nil:
		fmt.Fprintf(r.opts.Log, "replace-default: nothing to replace: ServiceCIDR %s has one CIDR (%s)\n", def.Name, def.Spec.CIDRs[0])
		return nil
	case def != nil && def.DeletionTimestamp == nil && len(def.Spec.CIDRs) == 1:
		// recreated by an earlier run; only the hold is left
	default:
		if def, err = r.recreate(ctx, def, hold); err != nil {
			return err
		}
	}
	if len(def.Spec.CIDRs) != 1 {
		return fmt.Errorf("ServiceCIDR %s came back with %s: the apiservers still serve two ranges; roll every apiserver to --service-cluster-ip-range=%s, then run replace-default again (ServiceCIDR %s stays meanwhile)",
			def.Name, strings.Join(def.Spec.CIDRs, ","), def.Spec.CIDRs[0], HoldName)
	}
	if _, err := r.waitCIDR(ctx, def.Name, ready); err != nil {
		return err
	}
	if err := r.removeHold(ctx); err != nil {
		return err
	}
	fmt.Fprintf(r.opts.Log, "replace-default: ServiceCIDR %s has one CIDR (%s)\n", def.Name, def.Spec.CIDRs[0])
	return nil
}

// recreate has the apiservers recreate the `kubernetes` ServiceCIDR def
// (nil when it is gone): while it has two CIDRs it covers the primary with
// the hold, deletes def unless it is being deleted already, and waits until
// the apiservers have recreated it.
func (r *Runner) recreate(ctx context.Context, def, hold *networkingv1.ServiceCIDR) (*networkingv1.ServiceCIDR, error) {
	var gone string
	if def != nil {
		gone = string(def.UID)
		if len(def.Spec.CIDRs) > 1 {
			if err := r.cover(ctx, def, hold); err != nil {
				return nil, err
			}
		}
		if def.DeletionTimestamp == nil {
			err := r.client.NetworkingV1().ServiceCIDRs().Delete(ctx, def.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &def.UID}})
			if err != nil && !apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("deleting ServiceCIDR %s: %w", def.Name, err)
			}
			if err := r.step("deleted ServiceCIDR %s (%s); the apiservers recreate it from their range once every address is covered", def.Name, strings.Join(def.Spec.CIDRs, ",")); err != nil {
				return nil, err
			}
		}
	}
	return r.waitCIDR(ctx, renumber.DefaultServiceCIDRName, recreatedSince(gone))
}

// cover refuses while an address of def's secondary CIDR is in use, and
// makes the hold over def's primary CIDR and waits until it is ready, so the
// deletion controller can release def with every address still covered.
func (r *Runner) cover(ctx context.Context, def, hold *networkingv1.ServiceCIDR) error {
	if err := r.refuseSecondary(ctx, def); err != nil {
		return err
	}
	primary := def.Spec.CIDRs[0]
	if hold != nil && hold.DeletionTimestamp != nil {
		// an earlier run was deleting it: let that end, then make it again
		if err := r.waitGone(ctx, HoldName); err != nil {
			return err
		}
		hold = nil
	}
	if hold == nil {
		sc := &networkingv1.ServiceCIDR{
			ObjectMeta: metav1.ObjectMeta{Name: HoldName, Labels: map[string]string{ManagedByLabel: renumber.FieldManager}},
			Spec:       networkingv1.ServiceCIDRSpec{CIDRs: []string{primary}},
		}
		if _, err := r.client.NetworkingV1().ServiceCIDRs().Create(ctx, sc, metav1.CreateOptions{FieldManager: renumber.FieldManager}); err != nil {
			return fmt.Errorf("creating ServiceCIDR %s with %s: %w", HoldName, primary, err)
		}
		if err := r.step("created ServiceCIDR %s with %s, to cover its addresses while ServiceCIDR %s is recreated", HoldName, primary, def.Name); err != nil {
			return err
		}
	} else if strings.Join(hold.Spec.CIDRs, ",") != primary {
		return fmt.Errorf("ServiceCIDR %s holds %s, not the primary CIDR %s of ServiceCIDR %s: delete it, then run replace-default again",
			HoldName, strings.Join(hold.Spec.CIDRs, ","), primary, def.Name)
	}
	_, err := r.waitCIDR(ctx, HoldName, ready)
	return err
}

// removeHold deletes the hold, unless it is gone or going, and waits until
// the deletion controller has released it.
func (r *Runner) removeHold(ctx context.Context) error {
	hold, err := r.getCIDR(ctx, HoldName)
	if err != nil || hold == nil {
		return err
	}
	if hold.DeletionTimestamp == nil {
		err := r.client.NetworkingV1().ServiceCIDRs().Delete(ctx, HoldName, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &hold.UID}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting ServiceCIDR %s: %w", HoldName, err)
		}
		if err := r.step("deleted ServiceCIDR %s", HoldName); err != nil {
			return err
		}
	}
	return r.waitGone(ctx, HoldName)
}

// planReplace prints what ReplaceDefault would do now, after its refusals.
func (r *Runner) planReplace(ctx context.Context, def, hold *networkingv1.ServiceCIDR) error {
	name := renumber.DefaultServiceCIDRName
	var steps []string
	switch {
	case def != nil && def.DeletionTimestamp == nil && len(def.Spec.CIDRs) == 1:
		if hold == nil {
			fmt.Fprintf(r.opts.Log, "replace-default: nothing to replace: ServiceCIDR %s has one CIDR (%s)\n", name, def.Spec.CIDRs[0])
			return nil
		}
	case def != nil && len(def.Spec.CIDRs) > 1:
		if err := r.refuseSecondary(ctx, def); err != nil {
			return err
		}
		if hold == nil {
			steps = append(steps, fmt.Sprintf("create ServiceCIDR %s with %s and wait until it is ready", HoldName, def.Spec.CIDRs[0]))
		}
		if def.DeletionTimestamp == nil {
			steps = append(steps, fmt.Sprintf("delete ServiceCIDR %s (%s)", name, strings.Join(def.Spec.CIDRs, ",")))
		}
		fallthrough
	default:
		steps = append(steps, fmt.Sprintf("wait until the apiservers recreate ServiceCIDR %s with one CIDR", name))
	}
	steps = append(steps, fmt.Sprintf("delete ServiceCIDR %s and wait until it is gone", HoldName))
	for i, s := range steps {
		fmt.Fprintf(r.opts.Log, "%d. %s (dry run)\n", i+1, s)
	}
	return nil
}
