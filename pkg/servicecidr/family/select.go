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
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

// listServices lists the Services of the namespace and selector r narrows
// to, sorted by namespace and name, whose IP families number families.
func (r *Runner) listServices(ctx context.Context, families int) ([]corev1.Service, error) {
	if _, err := labels.Parse(r.opts.Selector); err != nil {
		return nil, fmt.Errorf("-l/--selector %q: %w", r.opts.Selector, err)
	}
	list, err := r.client.CoreV1().Services(r.opts.Namespace).List(ctx, metav1.ListOptions{LabelSelector: r.opts.Selector})
	if err != nil {
		return nil, fmt.Errorf("listing Services: %w", err)
	}
	var out []corev1.Service
	for i := range list.Items {
		if svc := &list.Items[i]; eligible(svc) && len(svc.Spec.IPFamilies) == families {
			out = append(out, *svc)
		}
	}
	sort.Slice(out, func(i, j int) bool { return key(&out[i]) < key(&out[j]) })
	return out, nil
}

// eligible tells whether a Service's IP families are the operator's to
// change: not an ExternalName Service (no ClusterIP, no families), not the
// apiservers' `kubernetes` Service (they set its families from their
// ranges), not a renumber bridge (it keeps the moved Service's old
// addresses as they were), not one being deleted (its addresses go with it).
func eligible(svc *corev1.Service) bool {
	return svc.Spec.Type != corev1.ServiceTypeExternalName &&
		!renumber.IsKubernetes(svc) &&
		svc.Labels[renumber.BridgeLabel] == "" &&
		svc.DeletionTimestamp == nil
}

func key(svc *corev1.Service) string { return svc.Namespace + "/" + svc.Name }

// headless tells whether svc has no ClusterIP to allocate.
func headless(svc *corev1.Service) bool {
	return svc.Spec.ClusterIP == corev1.ClusterIPNone
}

// otherFamily is the IP family a Service of family f gains.
func otherFamily(f corev1.IPFamily) corev1.IPFamily {
	if f == corev1.IPv6Protocol {
		return corev1.IPv4Protocol
	}
	return corev1.IPv6Protocol
}
