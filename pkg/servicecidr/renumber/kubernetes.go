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
	"fmt"
	"math/big"
	"net/netip"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/netfork/netfork/pkg/controlplane/apiserverranges"
	"github.com/netfork/netfork/pkg/controlplane/controller/servicebridge"
)

// kubernetesName is the apiservers' Service, in namespace default.
const kubernetesName = "kubernetes"

// defaultKubernetesTimeout bounds each wait for the apiservers: they recreate
// the `kubernetes` Service once per endpoint reconcile interval (10 s by default).
const defaultKubernetesTimeout = 2 * time.Minute

// IsKubernetes tells whether svc is the apiservers' own `kubernetes` Service,
// which only they change.
func IsKubernetes(svc *corev1.Service) bool {
	return svc.Namespace == metav1.NamespaceDefault && svc.Name == kubernetesName
}

// kubernetesNewIPs are the addresses the apiservers give the `kubernetes`
// Service in the target: its first address of each family svc has.
func kubernetesNewIPs(svc *corev1.Service, to Ranges) []string {
	var out []string
	for _, ip := range ClusterIPs(svc) {
		a, err := netip.ParseAddr(ip)
		if err != nil {
			continue
		}
		if p, ok := to.family(a.Is4()); ok {
			first, _ := atOffset(p, big.NewInt(1))
			out = append(out, first.String())
		}
	}
	return out
}

// allIn tells whether every address of ips is in r (and there is one).
func allIn(ips []string, r Ranges) bool {
	for _, ip := range ips {
		a, err := netip.ParseAddr(ip)
		if err != nil || !r.Contains(a) {
			return false
		}
	}
	return len(ips) > 0
}

// kubernetesAhead is the live `kubernetes` Service when the renumber is still
// to move it: before the cut-over (after it, no bridge can take an old
// address), not yet deleted by this renumber, outside the target.
func kubernetesAhead(c *cluster, st *State, to Ranges) *corev1.Service {
	k := c.service(metav1.NamespaceDefault, kubernetesName)
	if k == nil || st.CutOver != nil || allIn(ClusterIPs(k), to) {
		return nil
	}
	if st.Kubernetes != nil && st.Kubernetes.UID != k.UID {
		return nil
	}
	return k
}

// kubernetesRecord is what the renumber records of the `kubernetes` Service before it deletes it.
func kubernetesRecord(svc *corev1.Service, to Ranges) *ServiceRecord {
	return &ServiceRecord{
		Namespace: svc.Namespace, Name: svc.Name, UID: svc.UID,
		OldClusterIPs: ClusterIPs(svc), NewClusterIPs: kubernetesNewIPs(svc, to),
		Spec: *svc.Spec.DeepCopy(), Bridge: KubernetesBridgeName,
	}
}

// getService is namespace/name, nil when there is none.
func (r *Runner) getService(ctx context.Context, namespace, name string) (*corev1.Service, error) {
	svc, err := r.client.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading Service %s/%s: %w", namespace, name, err)
	}
	return svc, nil
}

// getKubernetesBridge is the bridge of the `kubernetes` Service, nil when there is none.
func (r *Runner) getKubernetesBridge(ctx context.Context, rec *ServiceRecord) (*corev1.Service, error) {
	b, err := r.getService(ctx, rec.Namespace, rec.Bridge)
	if b != nil && b.Labels[BridgeLabel] != rec.Name {
		return nil, fmt.Errorf("the Service %s/%s exists and is not the bridge of %s", rec.Namespace, rec.Bridge, rec.key())
	}
	return b, err
}

// moveKubernetes moves the `kubernetes` Service into the target, from
// whatever step a previous run reached: it records it, deletes it and at once
// creates its bridge at the old addresses (which it held until then), and
// waits until the apiservers, rolled to the target, have recreated it there
// and their service-bridge controller has adopted the bridge's copies of their EndpointSlices.
// It runs before the cut-over: once the old ServiceCIDR is being deleted no
// address in it can be taken again.
func (r *Runner) moveKubernetes(ctx context.Context, st *State) error {
	to, err := ParseRanges(strings.Join(st.To, ","))
	if err != nil {
		return fmt.Errorf("recorded target: %w", err)
	}
	live, err := r.getService(ctx, metav1.NamespaceDefault, kubernetesName)
	if err != nil {
		return err
	}
	if st.Kubernetes == nil {
		if live == nil || allIn(ClusterIPs(live), to) {
			return nil // nothing at an old address to keep
		}
		st.Kubernetes = kubernetesRecord(live, to)
		if err := r.store.save(ctx, st); err != nil {
			return err
		}
		if err := r.step("recorded Service %s at %s", st.Kubernetes.key(), strings.Join(st.Kubernetes.OldClusterIPs, ",")); err != nil {
			return err
		}
	}
	rec := st.Kubernetes
	b, err := r.getKubernetesBridge(ctx, rec)
	if err != nil {
		return err
	}
	if b == nil {
		if err := r.replaceKubernetes(ctx, rec, live, to); err != nil {
			return err
		}
	}
	return r.waitKubernetesMoved(ctx, rec, to)
}

// replaceKubernetes writes the bridge's EndpointSlices, deletes the recorded
// `kubernetes` Service, if still there, and creates its bridge at the old
// addresses with no API call in between. The copies prime a window of its
// own (see window), so that kube-proxy sees the delete and the bridge, with
// its endpoints, in one sync.
func (r *Runner) replaceKubernetes(ctx context.Context, rec *ServiceRecord, live *corev1.Service, to Ranges) error {
	kept := live != nil && live.UID == rec.UID
	if live != nil && !kept && !allIn(ClusterIPs(live), to) {
		return fmt.Errorf("the Service %s was recreated at %s, outside the target %s: roll every apiserver to --service-cluster-ip-range=%s, delete it, and run renumber again", rec.key(), strings.Join(ClusterIPs(live), ","), to, to)
	}
	if kept {
		if _, err := r.enterWithCopies(ctx, rec, rec.Bridge, true); err != nil {
			return err
		}
		defer r.closeWindow()
	} else if err := r.writeAhead(ctx, rec); err != nil {
		return err
	}
	svcs := r.client.CoreV1().Services(rec.Namespace)
	if kept {
		err := svcs.Delete(ctx, rec.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &rec.UID}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting Service %s: %w", rec.key(), err)
		}
		if err := r.step("Service %s deleted, %s released; the apiservers recreate it at %s", rec.key(), strings.Join(rec.OldClusterIPs, ","), strings.Join(rec.NewClusterIPs, ",")); err != nil {
			return err
		}
	}
	if _, err := svcs.Create(ctx, newBridge(rec), metav1.CreateOptions{FieldManager: FieldManager}); err != nil {
		return fmt.Errorf("creating bridge Service %s/%s at %s, the old address of Service %s, which pods started before hold: %w", rec.Namespace, rec.Bridge, strings.Join(rec.OldClusterIPs, ","), rec.key(), err)
	}
	return r.step("Service %s/%s: bridge created at %s; the apiservers give it their endpoints", rec.Namespace, rec.Bridge, strings.Join(rec.OldClusterIPs, ","))
}

// hostRanges is ips as host prefixes, for a membership test.
func hostRanges(ips []string) Ranges {
	var out Ranges
	for _, ip := range ips {
		if a, err := netip.ParseAddr(ip); err == nil {
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
		}
	}
	return out
}

// waitKubernetesMoved waits until the `kubernetes` Service is back inside to
// and, when the apiservers publish EndpointSlices for it, its bridge has one
// of each address type owned by it, which their service-bridge controller keeps.
func (r *Runner) waitKubernetesMoved(ctx context.Context, rec *ServiceRecord, to Ranges) error {
	var why string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, r.opts.KubernetesTimeout, true, func(ctx context.Context) (bool, error) {
		live, err := r.getService(ctx, rec.Namespace, rec.Name)
		switch {
		case err != nil:
			return false, err
		case live == nil:
			why = fmt.Sprintf("Service %s is not recreated: check that every apiserver serves --service-cluster-ip-range=%s", rec.key(), to)
			return false, nil
		case !allIn(ClusterIPs(live), to):
			why = fmt.Sprintf("Service %s is at %s, outside %s: check that every apiserver serves --service-cluster-ip-range=%s", rec.key(), strings.Join(ClusterIPs(live), ","), to, to)
			return false, nil
		}
		missing, err := r.bridgeSlicesMissing(ctx, rec)
		if err != nil || missing == "" {
			return err == nil, err
		}
		why = fmt.Sprintf("bridge %s/%s has no %s EndpointSlice owned by it and managed by %s: check that the apiservers are netfork's with its service-bridge controller", rec.Namespace, rec.Bridge, missing, servicebridge.ManagedBy)
		return false, nil
	})
	if err == nil {
		return nil
	}
	if ctx.Err() != nil || why == "" {
		return err
	}
	return fmt.Errorf("after %s, %s, then run renumber again", r.opts.KubernetesTimeout, why)
}

// bridgeSlicesMissing names an address type of the `kubernetes` Service's
// EndpointSlices that its bridge has no adopted copy of, "" when none.
func (r *Runner) bridgeSlicesMissing(ctx context.Context, rec *ServiceRecord) (string, error) {
	slices := r.client.DiscoveryV1().EndpointSlices(rec.Namespace)
	src, err := slices.List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + rec.Name})
	if err != nil {
		return "", fmt.Errorf("listing the EndpointSlices of Service %s: %w", rec.key(), err)
	}
	dst, err := slices.List(ctx, metav1.ListOptions{LabelSelector: servicebridge.Selector(rec.Bridge).String()})
	if err != nil {
		return "", fmt.Errorf("listing the EndpointSlices of Service %s/%s: %w", rec.Namespace, rec.Bridge, err)
	}
	have := map[discoveryv1.AddressType]bool{}
	for i := range dst.Items {
		if adopted(&dst.Items[i], rec.Bridge) {
			have[dst.Items[i].AddressType] = true
		}
	}
	for _, s := range src.Items {
		if !have[s.AddressType] {
			return string(s.AddressType), nil
		}
	}
	return "", nil
}

// unmoveKubernetes puts the `kubernetes` Service back at its old addresses
// for a rollback, once every apiserver serves the old range again; until then
// it changes nothing and says what is left. It swaps the Service at the
// target for one at the old addresses itself (see swapKubernetesBack); when
// a run killed in the swap left no Service, it deletes the bridge and the
// apiservers recreate it from their --service-cluster-ip-range.
func (r *Runner) unmoveKubernetes(ctx context.Context, st *State) ([]string, error) {
	rec := st.Kubernetes
	if rec == nil {
		return nil, nil
	}
	live, err := r.getService(ctx, rec.Namespace, rec.Name)
	if err != nil {
		return nil, err
	}
	b, err := r.getKubernetesBridge(ctx, rec)
	if err != nil {
		return nil, err
	}
	if b == nil && live != nil && kubernetesBack(live, rec) {
		// back already: a run killed after it deleted the Service for the move,
		// or one after the swap; the copies written ahead for a bridge never
		// created are all that may be left
		return nil, r.deleteAhead(ctx, rec.Namespace, rec.Bridge)
	}
	if err := r.refuseKubernetesBack(ctx, rec); err != nil {
		at := "is not recreated yet"
		if live != nil {
			at = "stays at " + strings.Join(ClusterIPs(live), ",")
		}
		bridge := "its bridge is gone"
		if b != nil {
			bridge = fmt.Sprintf("its bridge %s/%s keeps %s", rec.Namespace, rec.Bridge, strings.Join(rec.OldClusterIPs, ","))
		}
		return []string{fmt.Sprintf("Service %s %s and %s: %v; roll the apiservers back to --service-cluster-ip-range=%s, then run rollback again",
			rec.key(), at, bridge, err, strings.Join(st.From, ","))}, nil
	}
	if live != nil && !kubernetesBack(live, rec) {
		if err := r.swapKubernetesBack(ctx, rec, live); err != nil {
			return nil, err
		}
	} else if err := r.deleteBridge(ctx, rec); err != nil {
		return nil, err
	}
	return nil, r.waitKubernetesBack(ctx, rec)
}

// swapKubernetesBack replaces the `kubernetes` Service at the target, live,
// with one at its old addresses: it deletes live (a window's primer), deletes
// the bridge and creates the Service again from its recorded spec, with live's
// labels and annotations, with no API call in between. kube-proxy sees the
// old address pass from the bridge to the Service in one sync, and the
// apiservers' own EndpointSlices serve it at once; waiting for the apiservers
// to recreate it would leave the old address, which every pod started before
// the move uses, unserved for up to an endpoint reconcile interval. The
// apiservers, back on the old range, find it where they would put it; when
// one is quicker, the create finds it there.
func (r *Runner) swapKubernetesBack(ctx context.Context, rec *ServiceRecord, live *corev1.Service) error {
	svcs := r.client.CoreV1().Services(rec.Namespace)
	remove := func() (bool, error) {
		err := svcs.Delete(ctx, rec.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &live.UID}})
		if err != nil && !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("deleting Service %s: %w", rec.key(), err)
		}
		return err == nil, nil
	}
	if err := r.enter(ctx, rec.key(), true, remove); err != nil {
		return err
	}
	defer r.closeWindow()
	r.admit()
	if err := r.step("Service %s deleted at %s", rec.key(), strings.Join(ClusterIPs(live), ",")); err != nil {
		return err
	}
	if err := r.deleteBridge(ctx, rec); err != nil {
		return err
	}
	back := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: rec.Namespace, Name: rec.Name, Labels: live.Labels, Annotations: live.Annotations},
		Spec:       *rec.Spec.DeepCopy(),
	}
	_, err := svcs.Create(ctx, back, metav1.CreateOptions{FieldManager: FieldManager})
	switch {
	case apierrors.IsAlreadyExists(err):
		return nil // an apiserver recreated it; waitKubernetesBack checks where
	case isAllocated(err):
		// an apiserver recreating it holds the addresses; waitKubernetesBack checks it did
		fmt.Fprintf(r.opts.Log, "Service %s: an apiserver holds %s, recreating it: %v\n", rec.key(), strings.Join(rec.OldClusterIPs, ","), err)
		return nil
	case err != nil:
		return fmt.Errorf("creating Service %s again at %s: %w", rec.key(), strings.Join(rec.OldClusterIPs, ","), err)
	}
	return r.step("Service %s created again at %s", rec.key(), strings.Join(rec.OldClusterIPs, ","))
}

// kubernetesBack tells whether live holds the recorded old addresses, primary first.
func kubernetesBack(live *corev1.Service, rec *ServiceRecord) bool {
	ips := ClusterIPs(live)
	return len(ips) > 0 && len(rec.OldClusterIPs) > 0 && canonical(ips[0]) == canonical(rec.OldClusterIPs[0]) &&
		allIn(ips, hostRanges(rec.OldClusterIPs))
}

// refuseKubernetesBack refuses unless every live apiserver says it serves a
// range whose first address is the `kubernetes` Service's old one, where it
// would recreate the Service.
func (r *Runner) refuseKubernetesBack(ctx context.Context, rec *ServiceRecord) error {
	leases, err := r.client.CoordinationV1().Leases(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{LabelSelector: apiserverranges.IdentitySelector})
	if err != nil {
		return fmt.Errorf("listing the apiservers' identity Leases: %w", err)
	}
	live := apiserverranges.Live(leases.Items, r.opts.Now())
	if len(live) == 0 {
		return fmt.Errorf("no live apiserver identity Lease says which range the apiservers serve")
	}
	for _, l := range live {
		v := l.Annotations[apiserverranges.Annotation]
		served, err := ParseRanges(v)
		if err != nil {
			return fmt.Errorf("apiserver %s does not say its Service range", l.Name)
		}
		first, _ := atOffset(served[0], big.NewInt(1))
		if first.String() != canonical(rec.OldClusterIPs[0]) {
			return fmt.Errorf("apiserver %s serves %s and would recreate it at %s", l.Name, v, first)
		}
	}
	return nil
}

// waitKubernetesBack waits until the apiservers have recreated the `kubernetes` Service at its old addresses.
func (r *Runner) waitKubernetesBack(ctx context.Context, rec *ServiceRecord) error {
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, r.opts.KubernetesTimeout, true, func(ctx context.Context) (bool, error) {
		live, err := r.getService(ctx, rec.Namespace, rec.Name)
		return err == nil && live != nil && kubernetesBack(live, rec), err
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("after %s, Service %s is not back at %s: check that every apiserver serves the old range, then run rollback again", r.opts.KubernetesTimeout, rec.key(), strings.Join(rec.OldClusterIPs, ","))
	}
	if err != nil {
		return err
	}
	return r.step("Service %s back at %s", rec.key(), strings.Join(rec.OldClusterIPs, ","))
}
