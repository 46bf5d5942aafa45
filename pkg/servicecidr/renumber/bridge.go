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
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/netfork/netfork/pkg/controlplane/controller/servicebridge"
)

// writeAhead writes the bridge's EndpointSlices, copies of the moved
// Service's, while the bridge does not exist yet: kube-proxy then has its
// endpoints when it sees the bridge, and the old address never refuses. The
// apiservers' service-bridge controller adopts them once the bridge exists
// and keeps them equal to the Service's from then on.
func (r *Runner) writeAhead(ctx context.Context, rec *ServiceRecord) error {
	copies, err := r.copiesFor(ctx, rec, rec.Bridge)
	if err != nil {
		return err
	}
	_, err = r.writeCopies(ctx, rec, rec.Bridge, copies)
	return err
}

// copiesFor are the copies of the moved Service's EndpointSlices for the
// Service name that stands in for it (its bridge or its holder).
func (r *Runner) copiesFor(ctx context.Context, rec *ServiceRecord, name string) ([]*discoveryv1.EndpointSlice, error) {
	src, err := r.client.DiscoveryV1().EndpointSlices(rec.Namespace).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + rec.Name})
	if err != nil {
		return nil, fmt.Errorf("listing the EndpointSlices of Service %s: %w", rec.key(), err)
	}
	sources := make([]*discoveryv1.EndpointSlice, len(src.Items))
	for i := range src.Items {
		sources[i] = &src.Items[i]
	}
	return servicebridge.Mirror(rec.Namespace, name, nil, rec.Name, sources), nil
}

// writeCopies creates copies for the Service name and says how many it
// created: those an earlier run or the controller wrote are left as they are.
func (r *Runner) writeCopies(ctx context.Context, rec *ServiceRecord, name string, copies []*discoveryv1.EndpointSlice) (int, error) {
	slices := r.client.DiscoveryV1().EndpointSlices(rec.Namespace)
	written := 0
	for _, s := range copies {
		_, err := slices.Create(ctx, s, metav1.CreateOptions{FieldManager: FieldManager})
		switch {
		case apierrors.IsAlreadyExists(err):
		case err != nil:
			return written, fmt.Errorf("writing EndpointSlice %s/%s for %s, which stands in for Service %s: %w", s.Namespace, s.Name, name, rec.key(), err)
		default:
			written++
		}
	}
	if written == 0 {
		return 0, nil
	}
	role := "bridge"
	if name == rec.Holder {
		role = "holder"
	}
	return written, r.step("Service %s: %d EndpointSlices written for its %s %s", rec.key(), written, role, name)
}

// deleteCopy deletes the copy s this run wrote as a window's primer when the
// window had no room left for the flip, to write it again as the next one's.
func (r *Runner) deleteCopy(ctx context.Context, s *discoveryv1.EndpointSlice) error {
	err := r.client.DiscoveryV1().EndpointSlices(s.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting EndpointSlice %s/%s: %w", s.Namespace, s.Name, err)
	}
	return r.step("EndpointSlice %s/%s deleted, to be written again in the next window", s.Namespace, s.Name)
}

// isDNS tells whether svc is the cluster DNS Service, whose address is every pod's resolver.
func isDNS(svc *corev1.Service) bool {
	return svc.Namespace == metav1.NamespaceSystem && svc.Labels[dnsLabel] == dnsLabelValue
}

// deleteAhead deletes the copies writeAhead wrote that no bridge adopted:
// the bridge was refused, or the renumber is rolled back or finished before
// it was created.
func (r *Runner) deleteAhead(ctx context.Context, namespace, bridge string) error {
	if bridge == "" {
		return nil
	}
	slices := r.client.DiscoveryV1().EndpointSlices(namespace)
	l, err := slices.List(ctx, metav1.ListOptions{LabelSelector: servicebridge.Selector(bridge).String()})
	if err != nil {
		return fmt.Errorf("listing the EndpointSlices of bridge %s/%s: %w", namespace, bridge, err)
	}
	for i := range l.Items {
		s := &l.Items[i]
		if len(s.OwnerReferences) > 0 {
			continue // the bridge's: they go with it
		}
		err := slices.Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting EndpointSlice %s/%s: %w", namespace, s.Name, err)
		}
		if err := r.step("EndpointSlice %s/%s deleted: its bridge was not created", namespace, s.Name); err != nil {
			return err
		}
	}
	return nil
}

// waitAdopted waits until no copy writeAhead wrote for a recorded bridge is
// left without its bridge as owner: the apiservers' service-bridge controller
// keeps the copies of the bridges it adopted equal to their Services'.
func (r *Runner) waitAdopted(ctx context.Context, st *State) error {
	bridges := map[string]bool{}
	for _, rec := range st.Services {
		if rec.Bridge != "" {
			bridges[rec.Namespace+"/"+rec.Bridge] = true
		}
	}
	if len(bridges) == 0 {
		return nil
	}
	var pending []string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, r.opts.KubernetesTimeout, true, func(ctx context.Context) (bool, error) {
		l, err := r.client.DiscoveryV1().EndpointSlices(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelManagedBy + "=" + servicebridge.ManagedBy})
		if err != nil {
			return false, fmt.Errorf("listing the bridges' EndpointSlices: %w", err)
		}
		pending = pending[:0]
		for _, s := range l.Items {
			if len(s.OwnerReferences) == 0 && bridges[s.Namespace+"/"+s.Labels[discoveryv1.LabelServiceName]] {
				pending = append(pending, s.Namespace+"/"+s.Name)
			}
		}
		return len(pending) == 0, nil
	})
	if err == nil || ctx.Err() != nil || len(pending) == 0 {
		return err
	}
	return fmt.Errorf("after %s, %d EndpointSlices written for bridges have no owner (%s): the apiservers' service-bridge controller adopts them; check that the apiservers are netfork's, then run renumber again",
		r.opts.KubernetesTimeout, len(pending), ListSome(pending, listed))
}

// adopted tells whether s is a copy the controller keeps for the bridge name.
func adopted(s *discoveryv1.EndpointSlice, bridge string) bool {
	for _, o := range s.OwnerReferences {
		if o.Kind == "Service" && o.Name == bridge {
			return true
		}
	}
	return false
}
