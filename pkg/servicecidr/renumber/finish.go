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

package renumber

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrNoRenumber is returned when there is no record to act on.
var ErrNoRenumber = fmt.Errorf("no renumber recorded in ConfigMap %s/%s", StateNamespace, StateName)

// Finish ends the grace period: it refuses while pods that may hold old
// addresses run (unless Options.Force), deletes the bridges, and returns what
// is left to the operator and the apiservers. After a transient error it
// continues from the record (see resume).
func (r *Runner) Finish(ctx context.Context) (left []string, err error) {
	err = r.resume(ctx, "finish", func() (err error) {
		left, err = r.finish(ctx)
		return err
	})
	return left, err
}

func (r *Runner) finish(ctx context.Context) ([]string, error) {
	st, err := r.store.load(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case st == nil:
		return nil, ErrNoRenumber
	case st.Phase == PhaseRollingBack:
		return nil, errors.New("a rollback is in progress: run rollback again")
	case st.Phase != PhaseRenumbered && st.Phase != PhaseFinished:
		return nil, fmt.Errorf("the renumber to %s is not complete (phase %s): run renumber again first", strings.Join(st.To, ","), st.Phase)
	}
	if st.Phase == PhaseRenumbered && !r.opts.Force {
		if err := r.refuseOldPods(ctx, st); err != nil {
			return nil, err
		}
	}
	for i := range st.Services {
		if err := r.deleteBridge(ctx, &st.Services[i]); err != nil {
			return nil, err
		}
	}
	if st.Kubernetes != nil {
		if err := r.deleteBridge(ctx, st.Kubernetes); err != nil {
			return nil, err
		}
	}
	if st.Phase != PhaseFinished {
		st.Phase = PhaseFinished
		if err := r.store.save(ctx, st); err != nil {
			return nil, err
		}
		if err := r.step("finished: the bridges are gone"); err != nil {
			return nil, err
		}
	}
	return r.leftAfterFinish(ctx, st)
}

// refuseOldPods refuses while pods created before the cut-over, not on the
// host network, still run: they may hold old addresses (environment
// variables such as KUBERNETES_SERVICE_HOST, caches, open connections). The
// record keeps the cut-over to the second, so a pod created in that second
// counts too.
func (r *Runner) refuseOldPods(ctx context.Context, st *State) error {
	pods, err := r.client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing Pods: %w", err)
	}
	var old []string
	for _, p := range pods.Items {
		if p.Spec.HostNetwork || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if st.CutOver != nil && !p.CreationTimestamp.After(st.CutOver.Time) {
			old = append(old, p.Namespace+"/"+p.Name)
		}
	}
	if len(old) > 0 {
		return fmt.Errorf("%d pods started before the cut-over may hold old addresses: %s (restart them, or --force)", len(old), ListSome(old, listed))
	}
	return nil
}

// deleteBridgeService deletes rec's bridge Service unless it is gone or
// another Service has its name.
func (r *Runner) deleteBridgeService(ctx context.Context, rec *ServiceRecord) error {
	svcs := r.client.CoreV1().Services(rec.Namespace)
	b, err := svcs.Get(ctx, rec.Bridge, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading bridge Service %s/%s: %w", rec.Namespace, rec.Bridge, err)
	}
	if b.Labels[BridgeLabel] != rec.Name {
		return nil
	}
	err = svcs.Delete(ctx, rec.Bridge, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &b.UID}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting bridge Service %s/%s: %w", rec.Namespace, rec.Bridge, err)
	}
	return r.step("Service %s/%s: bridge deleted, %s released", rec.Namespace, rec.Bridge, strings.Join(rec.OldClusterIPs, ","))
}

// deleteBridge deletes rec's bridge and the EndpointSlices written ahead for
// it that it never adopted; its own go with it.
func (r *Runner) deleteBridge(ctx context.Context, rec *ServiceRecord) error {
	if rec.Bridge == "" {
		return nil
	}
	if err := r.deleteBridgeService(ctx, rec); err != nil {
		return err
	}
	return r.deleteAhead(ctx, rec.Namespace, rec.Bridge)
}

// leftAfterFinish deletes the target ServiceCIDR once the apiservers' own
// holds the same range, and lists what is left.
func (r *Runner) leftAfterFinish(ctx context.Context, st *State) ([]string, error) {
	c, err := readCluster(ctx, r.client)
	if err != nil {
		return nil, err
	}
	to, _ := ParseRanges(strings.Join(st.To, ","))
	var left []string
	for _, l := range leftToOperator(c, st, to) {
		if !strings.HasPrefix(l, "restart kubelet") {
			left = append(left, l)
		}
	}
	switch d := c.defaultCIDR; {
	case c.target == nil:
	case d != nil && d.DeletionTimestamp == nil && strings.Join(d.Spec.CIDRs, ",") == strings.Join(st.To, ","):
		if err := r.deleteTarget(ctx); err != nil {
			return nil, err
		}
	default:
		left = append(left, fmt.Sprintf("ServiceCIDR %s stays until the apiservers recreate ServiceCIDR %s at %s (after the old one is released); run finish again then",
			TargetServiceCIDRName, DefaultServiceCIDRName, strings.Join(st.To, ",")))
	}
	return left, nil
}

// Rollback undoes a renumber before its cut-over: every recorded Service
// goes back to its old addresses, its bridge is deleted, kubeadm's ConfigMaps
// get their old values, the `kubernetes` Service goes back (once the
// apiservers serve the old range again), the target ServiceCIDR and the record
// are deleted. It returns what is left when the apiservers must be rolled back
// first: the record stays, and rollback, run again, continues.
// After the cut-over the old ServiceCIDR is being deleted and cannot take
// addresses again; the way back is a renumber to the old range. After a
// transient error it continues from the record (see resume).
func (r *Runner) Rollback(ctx context.Context) (left []string, err error) {
	err = r.resume(ctx, "rollback", func() (err error) {
		left, err = r.rollback(ctx)
		return err
	})
	return left, err
}

func (r *Runner) rollback(ctx context.Context) ([]string, error) {
	st, err := r.store.load(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case st == nil:
		return nil, ErrNoRenumber
	case st.Phase != PhaseMoving && st.Phase != PhaseRollingBack:
		return nil, fmt.Errorf("the renumber is past its cut-over (phase %s): ServiceCIDR %s is being deleted and takes no address again; renumber back with --to %s once the apiservers serve it",
			st.Phase, DefaultServiceCIDRName, strings.Join(st.From, ","))
	}
	if r.pacing() {
		defer r.follow(ctx)()
	}
	if st.Phase != PhaseRollingBack {
		// a renumber's primers would keep the rollback's resumed returns from windows of their own
		if err := r.deletePrimers(ctx, metav1.NamespaceAll, ""); err != nil {
			return nil, err
		}
		st.Phase = PhaseRollingBack
		if err := r.store.save(ctx, st); err != nil {
			return nil, err
		}
		if err := r.step("recorded the rollback"); err != nil {
			return nil, err
		}
	}
	for i := len(st.Services) - 1; i >= 0; i-- {
		if err := r.unmove(ctx, st, &st.Services[i]); err != nil {
			return nil, err
		}
	}
	r.closeWindow()
	if err := r.deleteHolders(ctx, st); err != nil {
		return nil, err
	}
	for i := len(st.Configs) - 1; i >= 0; i-- {
		c := st.Configs[i]
		changed, err := r.setConfig(ctx, c.Name, c.Key, c.New, c.Old)
		if err != nil {
			return nil, err
		}
		if !changed {
			continue
		}
		if err := r.step("ConfigMap %s/%s key %s: old value restored", metav1.NamespaceSystem, c.Name, c.Key); err != nil {
			return nil, err
		}
	}
	if left, err := r.unmoveKubernetes(ctx, st); err != nil || len(left) > 0 {
		return left, err
	}
	if err := r.deleteTarget(ctx); err != nil {
		return nil, err
	}
	if err := r.store.remove(ctx); err != nil {
		return nil, err
	}
	return nil, r.step("rolled back: ConfigMap %s/%s deleted", StateNamespace, StateName)
}

// unmove takes one recorded Service back to its old addresses and deletes
// its bridge; the bridge of a Service deleted since goes too. Its flip, which
// frees only its new address, enters a window (see window) and the bridge's
// delete and the Service's return to the old address follow it with no other
// call in between, so both land in kube-proxy's next sync. So that the name
// always resolves, the flip's CNAME to the bridge turns to a holder, created
// at the new addresses in the same window, before the bridge goes; the
// holders go when every Service is back. The flip cannot be
// undone to wait for another window, so the budget is checked before it. A
// Service an earlier run left flipped gets its bridge again and a window of
// its own making for the last two (see standBy).
func (r *Runner) unmove(ctx context.Context, st *State, rec *ServiceRecord) error {
	live, err := r.getRecorded(ctx, rec)
	if err != nil {
		return err
	}
	if live == nil {
		return r.deleteBridge(ctx, rec)
	}
	resumed := live.Spec.Type == corev1.ServiceTypeExternalName
	if !resumed {
		if equalIPs(ClusterIPs(live), rec.OldClusterIPs) {
			if err := r.restoreOwners(ctx, rec, live); err != nil {
				return err
			}
			return r.deleteAhead(ctx, rec.Namespace, rec.Bridge)
		}
		flip := func() (bool, error) {
			flipped, err := r.toExternalName(ctx, st, rec, live, rec.Bridge)
			live = flipped
			return true, err
		}
		entered := false
		if rec.Bridge != "" && rec.Holder != "" {
			// the holder's copies prime the window: the flip is in it
			if entered, err = r.enterWithCopies(ctx, rec, rec.Holder, isDNS(live)); err != nil {
				return err
			}
		}
		switch {
		case rec.Bridge == "" || entered:
			if _, err := flip(); err != nil {
				return err
			}
		default:
			if err := r.enter(ctx, rec.key(), isDNS(live), flip); err != nil {
				return err
			}
			r.admit()
		}
	}
	if rec.Bridge != "" {
		if rec.Holder != "" {
			if live, err = r.holdBack(ctx, st, rec, live, resumed); err != nil {
				return err
			}
		}
		if resumed {
			if err := r.standBy(ctx, rec, rec.Bridge, rec.OldClusterIPs, isDNS(live)); err != nil {
				return err
			}
		}
		if err := r.deleteBridgeService(ctx, rec); err != nil {
			return err
		}
	}
	if err := r.restore(ctx, st, rec, live, rec.OldClusterIPs, false); err != nil {
		return err
	}
	if resumed {
		if err := r.deletePrimers(ctx, rec.Namespace, primerName(rec.Name)); err != nil {
			return err
		}
	}
	return r.deleteAhead(ctx, rec.Namespace, rec.Bridge)
}

// deleteTarget deletes the target ServiceCIDR unless it is gone or going.
func (r *Runner) deleteTarget(ctx context.Context) error {
	cidrs := r.client.NetworkingV1().ServiceCIDRs()
	sc, err := cidrs.Get(ctx, TargetServiceCIDRName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("reading ServiceCIDR %s: %w", TargetServiceCIDRName, err)
	case sc.DeletionTimestamp != nil:
		return nil
	}
	err = cidrs.Delete(ctx, TargetServiceCIDRName, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &sc.UID}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting ServiceCIDR %s: %w", TargetServiceCIDRName, err)
	}
	return r.step("deleted ServiceCIDR %s", TargetServiceCIDRName)
}
