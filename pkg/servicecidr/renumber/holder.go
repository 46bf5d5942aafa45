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
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/netfork/netfork/pkg/controlplane/controller/servicebridge"
)

// A holder stands in for a Service at its new addresses before it moves.
// Cluster DNS answers a Service's new addresses as soon as it is back at
// them, but kube-proxy serves them only from its next sync, up to a period
// later: without a holder, a client that resolves the name in between
// reaches nothing. The holder is a bridge at the new addresses, which the
// apiservers' service-bridge controller gives the Service's endpoints, created
// a kube-proxy sync before the Service's window; the flip makes the name a
// CNAME to it, and its delete and the Service's return land in one sync.

// ensureHolders creates the holders of the recorded Services still at their
// old addresses, read from c, and waits until each has its copies of the
// Service's EndpointSlices. A holder's addresses taken meanwhile are chosen
// again; a holder refused for good (a quota, an admission policy) is dropped
// from the record and its Service moves without one.
func (r *Runner) ensureHolders(ctx context.Context, st *State, c *cluster) error {
	var created []*ServiceRecord
	for i := range st.Services {
		rec := &st.Services[i]
		if rec.Holder == "" {
			continue
		}
		svc := c.service(rec.Namespace, rec.Name)
		if svc == nil || svc.UID != rec.UID || svc.Spec.Type == corev1.ServiceTypeExternalName || !equalIPs(ClusterIPs(svc), rec.OldClusterIPs) {
			continue // gone, or flipped by an earlier run: its holder, if any, was made then
		}
		if h := c.service(rec.Namespace, rec.Holder); h != nil {
			if h.Labels[BridgeLabel] != rec.Name {
				return fmt.Errorf("the Service %s/%s exists and is not the holder of %s", rec.Namespace, rec.Holder, rec.key())
			}
			if equalIPs(ClusterIPs(h), rec.NewClusterIPs) {
				created = append(created, rec)
				continue
			}
			// made by a run whose addresses were chosen again since
			if err := r.deleteHolder(ctx, rec); err != nil {
				return err
			}
		}
		ok, err := r.createHolder(ctx, st, rec)
		if err != nil {
			return err
		}
		if ok {
			created = append(created, rec)
		}
	}
	return r.waitHolders(ctx, created)
}

// createHolder creates rec's holder at its new addresses, choosing them again
// when taken; false when the holder was refused for good and dropped.
func (r *Runner) createHolder(ctx context.Context, st *State, rec *ServiceRecord) (bool, error) {
	for attempt := 0; ; attempt++ {
		_, err := r.client.CoreV1().Services(rec.Namespace).Create(ctx, standIn(rec, rec.Holder, rec.NewClusterIPs), metav1.CreateOptions{FieldManager: FieldManager})
		switch {
		case err == nil:
			return true, r.step("Service %s/%s: holder created at %s", rec.Namespace, rec.Holder, strings.Join(rec.NewClusterIPs, ","))
		case isAllocated(err) && attempt < 3:
			if _, err := r.repick(ctx, st, rec); err != nil {
				return false, err
			}
			continue
		case apierrors.IsInvalid(err) || apierrors.IsForbidden(err):
			fmt.Fprintf(r.opts.Log, "Service %s: no holder at %s: %v\n", rec.key(), strings.Join(rec.NewClusterIPs, ","), err)
			rec.Holder = ""
			return false, r.store.save(ctx, st)
		}
		return false, fmt.Errorf("creating holder Service %s/%s: %w", rec.Namespace, rec.Holder, err)
	}
}

// waitHolders waits until every holder has as many copies of its Service's
// EndpointSlices as the Service has slices, and counts that as a change: the
// first window then pauses until kube-proxy has served them.
func (r *Runner) waitHolders(ctx context.Context, holders []*ServiceRecord) error {
	return r.waitCopies(ctx, holders, func(rec *ServiceRecord) string { return rec.Holder })
}

// waitCopies waits until the stand-in nameOf(rec) of each of recs has as many
// copies of rec's EndpointSlices as the Service has slices, and counts that as
// a change: the next window then pauses until kube-proxy has served them.
func (r *Runner) waitCopies(ctx context.Context, recs []*ServiceRecord, nameOf func(*ServiceRecord) string) error {
	if len(recs) == 0 {
		return nil
	}
	var pending []string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, r.opts.KubernetesTimeout, true, func(ctx context.Context) (bool, error) {
		l, err := r.client.DiscoveryV1().EndpointSlices(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, fmt.Errorf("listing EndpointSlices: %w", err)
		}
		// count[namespace/service] is how many slices a Service has, and how many copies a holder
		count := map[string]int{}
		for i := range l.Items {
			s := &l.Items[i]
			name := s.Labels[discoveryv1.LabelServiceName]
			copied := s.Labels[discoveryv1.LabelManagedBy] == servicebridge.ManagedBy
			if name == "" || (copied && len(s.OwnerReferences) == 0) {
				continue // a copy written ahead for a bridge not yet created
			}
			count[s.Namespace+"/"+name]++
		}
		pending = pending[:0]
		for _, rec := range recs {
			if name := rec.Namespace + "/" + nameOf(rec); count[name] < count[rec.key()] {
				pending = append(pending, name)
			}
		}
		return len(pending) == 0, nil
	})
	if err == nil {
		r.lastChange = r.opts.Now()
		return nil
	}
	if ctx.Err() != nil || len(pending) == 0 {
		return err
	}
	return fmt.Errorf("after %s, the holders or bridges %s lack copies of their Services' EndpointSlices: the apiservers' service-bridge controller writes them; check that the apiservers are netfork's, then run renumber again",
		r.opts.KubernetesTimeout, ListSome(pending, listed))
}

// deleteHolder deletes rec's holder, freeing its new addresses for the
// Service: one request, as it falls in the Service's window.
func (r *Runner) deleteHolder(ctx context.Context, rec *ServiceRecord) error {
	err := r.client.CoreV1().Services(rec.Namespace).Delete(ctx, rec.Holder, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting holder Service %s/%s: %w", rec.Namespace, rec.Holder, err)
	}
	return r.step("Service %s/%s: holder deleted, %s released", rec.Namespace, rec.Holder, strings.Join(rec.NewClusterIPs, ","))
}

// deleteHolders deletes every recorded holder left: of a Service deleted or
// moved without it, once every Service has moved (so none is left for
// finish), or of a renumber rolled back; and the windows' primers left.
func (r *Runner) deleteHolders(ctx context.Context, st *State) error {
	l, err := r.client.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: BridgeLabel})
	if err != nil {
		return fmt.Errorf("listing the bridge and holder Services: %w", err)
	}
	holders := map[string]string{} // namespace/holder -> the Service's name
	for _, rec := range st.Services {
		if rec.Holder != "" {
			holders[rec.Namespace+"/"+rec.Holder] = rec.Name
		}
	}
	for i := range l.Items {
		h := &l.Items[i]
		owner, ok := holders[h.Namespace+"/"+h.Name]
		if !ok || h.Labels[BridgeLabel] != owner {
			continue
		}
		err := r.client.CoreV1().Services(h.Namespace).Delete(ctx, h.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &h.UID}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting holder Service %s/%s: %w", h.Namespace, h.Name, err)
		}
		if err := r.step("Service %s/%s: holder deleted, %s released", h.Namespace, h.Name, strings.Join(ClusterIPs(h), ",")); err != nil {
			return err
		}
	}
	// copies a rollback wrote ahead for a holder it then did not create
	slices, err := r.client.DiscoveryV1().EndpointSlices(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelManagedBy + "=" + servicebridge.ManagedBy})
	if err != nil {
		return fmt.Errorf("listing the bridges' and holders' EndpointSlices: %w", err)
	}
	for i := range slices.Items {
		s := &slices.Items[i]
		if _, ok := holders[s.Namespace+"/"+s.Labels[discoveryv1.LabelServiceName]]; !ok || len(s.OwnerReferences) > 0 {
			continue
		}
		err := r.client.DiscoveryV1().EndpointSlices(s.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting EndpointSlice %s/%s: %w", s.Namespace, s.Name, err)
		}
		if err := r.step("EndpointSlice %s/%s deleted: its holder was not created", s.Namespace, s.Name); err != nil {
			return err
		}
	}
	// primers of a run stopped between writing them and its Service's return
	return r.deletePrimers(ctx, metav1.NamespaceAll, "")
}

// holdBack, in a rollback, creates rec's holder at the new addresses live,
// flipped to ExternalName, has just freed, and points its CNAME there, so
// that its name resolves while its bridge is deleted and until it is back at
// its old addresses. A holder refused leaves the CNAME at the bridge. When
// resumed (the flip was an earlier run's, whose window has passed), the new
// addresses have been unserved since, so the CNAME turns to the holder only
// once kube-proxy serves it (see serveFirst).
func (r *Runner) holdBack(ctx context.Context, st *State, rec *ServiceRecord, live *corev1.Service, resumed bool) (*corev1.Service, error) {
	if live.Spec.ExternalName == serviceDNS(rec.Namespace, rec.Holder, st.ClusterDomain) {
		return live, nil
	}
	_, err := r.client.CoreV1().Services(rec.Namespace).Create(ctx, standIn(rec, rec.Holder, rec.NewClusterIPs), metav1.CreateOptions{FieldManager: FieldManager})
	switch {
	case err == nil:
		if err := r.step("Service %s/%s: holder created at %s", rec.Namespace, rec.Holder, strings.Join(rec.NewClusterIPs, ",")); err != nil {
			return nil, err
		}
	case apierrors.IsAlreadyExists(err):
		h, err := r.getService(ctx, rec.Namespace, rec.Holder)
		if err != nil {
			return nil, err
		}
		if h == nil || h.Labels[BridgeLabel] != rec.Name {
			return live, nil // gone again, or not ours: the CNAME stays at the bridge
		}
	default:
		fmt.Fprintf(r.opts.Log, "Service %s: no holder at %s while it goes back: %v\n", rec.key(), strings.Join(rec.NewClusterIPs, ","), err)
		return live, nil
	}
	if resumed {
		if err := r.serveFirst(ctx, []*ServiceRecord{rec}, func(rec *ServiceRecord) string { return rec.Holder }); err != nil {
			return nil, err
		}
	}
	return r.retarget(ctx, st, rec, live, rec.Holder)
}
