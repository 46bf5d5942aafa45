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

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PrimerManagedBy is the endpointslice.kubernetes.io/managed-by value of the
// EndpointSlices that prime a resumed Service's window (see standBy): no
// controller manages them, the renumber deletes them.
const PrimerManagedBy = "servicecidr-primer.netfork.io"

// standBy readies rec's return to ips after an earlier run stopped between
// its Service's flip and its return (killed, or failed on a transient
// error). In a run that was not stopped, the stand-in at ips (the holder in
// a renumber, the bridge in a rollback) has served them since a sync before
// the window, and its delete and the Service's return land in that window's
// sync. A stopped run may have deleted the stand-in, leaving ips unserved,
// and nothing of the Service's move is left to prime a window. So the stand-in
// is created again if it is gone, and the run waits until kube-proxy serves it
// with its copies (serveFirst); then a window opens, unless the open one has
// room and the stand-in was there, primed by EndpointSlices of a Service no one creates
// (primerName), one per IP family, which kube-proxy takes as a change. When
// an earlier run's primers are there, that run was stopped in this window:
// the Service then returns without another, so that a run stopped after each
// of its changes still ends (the stand-in is not created again either).
func (r *Runner) standBy(ctx context.Context, rec *ServiceRecord, name string, ips []string, critical bool) error {
	primers, err := r.client.DiscoveryV1().EndpointSlices(rec.Namespace).List(ctx, metav1.ListOptions{LabelSelector: primerSelector(primerName(rec.Name))})
	if err != nil {
		return fmt.Errorf("listing the EndpointSlices that prime windows: %w", err)
	}
	if len(primers.Items) > 0 {
		// An earlier run got this far and was stopped in the window its primers opened:
		// whatever of the stand-in is left goes and the Service returns without another, so
		// that a run stopped after each of its changes still ends.
		fmt.Fprintf(r.opts.Log, "Service %s: an earlier run primed its return's window; it returns without another\n", rec.key())
		return nil
	}
	s, err := r.getService(ctx, rec.Namespace, name)
	switch {
	case err != nil:
		return err
	case s != nil && s.Labels[BridgeLabel] != rec.Name:
		return fmt.Errorf("the Service %s/%s exists and does not stand in for %s", rec.Namespace, name, rec.key())
	case s == nil:
		_, err := r.client.CoreV1().Services(rec.Namespace).Create(ctx, standIn(rec, name, ips), metav1.CreateOptions{FieldManager: FieldManager})
		switch {
		case apierrors.IsInvalid(err) || apierrors.IsForbidden(err):
			// ips taken meanwhile, a quota, a policy: the Service returns without one
			fmt.Fprintf(r.opts.Log, "Service %s: no stand-in %s at %s for its return: %v\n", rec.key(), name, strings.Join(ips, ","), err)
			return nil
		case err != nil:
			return fmt.Errorf("creating Service %s/%s at %s, which stands in for %s: %w", rec.Namespace, name, strings.Join(ips, ","), rec.key(), err)
		}
		if err := r.step("Service %s/%s: created again at %s until Service %s returns there", rec.Namespace, name, strings.Join(ips, ","), rec.key()); err != nil {
			return err
		}
		if err := r.serveFirst(ctx, []*ServiceRecord{rec}, func(*ServiceRecord) string { return name }); err != nil {
			return err
		}
	}
	if !r.pacing() {
		return nil
	}
	if s == nil || critical || !r.roomLeft() {
		if err := r.openWindow(ctx, rec.key(), critical, func() (bool, error) { return r.writePrimers(ctx, rec) }); err != nil {
			return err
		}
	}
	r.admit()
	return nil
}

// primerName is the Service, never created, whose EndpointSlices prime the
// window of the Service name's resumed return.
func primerName(name string) string {
	return suffixed(name, "-renumber-primer")
}

// primerSelector selects the EndpointSlices of the primer Service name; of
// every primer Service when name is empty.
func primerSelector(name string) string {
	sel := discoveryv1.LabelManagedBy + "=" + PrimerManagedBy
	if name != "" {
		sel += "," + discoveryv1.LabelServiceName + "=" + name
	}
	return sel
}

// writePrimers creates an endpointless EndpointSlice of rec's primer Service
// for each of rec's IP families: a dual-stack kube-proxy hands each family's
// proxier only that family's slices (see primers).
func (r *Runner) writePrimers(ctx context.Context, rec *ServiceRecord) (bool, error) {
	name := primerName(rec.Name)
	families := rec.Spec.IPFamilies
	if len(families) == 0 {
		families = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	for _, f := range families {
		s := &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{
				Name: name + "-" + strings.ToLower(string(f)), Namespace: rec.Namespace,
				Labels: map[string]string{discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: PrimerManagedBy},
			},
			AddressType: discoveryv1.AddressType(f),
		}
		if _, err := r.client.DiscoveryV1().EndpointSlices(rec.Namespace).Create(ctx, s, metav1.CreateOptions{FieldManager: FieldManager}); err != nil {
			return false, fmt.Errorf("writing EndpointSlice %s/%s, which primes the window of Service %s: %w", s.Namespace, s.Name, rec.key(), err)
		}
	}
	return true, r.step("Service %s: %d EndpointSlices of %s written to prime its window", rec.key(), len(families), name)
}

// deletePrimers deletes the EndpointSlices of the primer Service name in
// namespace; every primer of the cluster when namespace is empty.
func (r *Runner) deletePrimers(ctx context.Context, namespace, name string) error {
	l, err := r.client.DiscoveryV1().EndpointSlices(namespace).List(ctx, metav1.ListOptions{LabelSelector: primerSelector(name)})
	if err != nil {
		return fmt.Errorf("listing the EndpointSlices that prime windows: %w", err)
	}
	for i := range l.Items {
		s := &l.Items[i]
		err := r.client.DiscoveryV1().EndpointSlices(s.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting EndpointSlice %s/%s: %w", s.Namespace, s.Name, err)
		}
		if err := r.step("EndpointSlice %s/%s deleted: it primed a window", s.Namespace, s.Name); err != nil {
			return err
		}
	}
	return nil
}

// serveFirst waits until the stand-in nameOf(rec) of each of recs, just
// created, has its copies of rec's EndpointSlices and kube-proxy has had the
// time to serve it (idleAfter since the copies, when the run paces itself),
// before a name resolves to it.
func (r *Runner) serveFirst(ctx context.Context, recs []*ServiceRecord, nameOf func(*ServiceRecord) string) error {
	if err := r.waitCopies(ctx, recs, nameOf); err != nil || !r.pacing() {
		return err
	}
	_, _, err := r.pauseUntilIdle(ctx)
	return err
}
