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

package apiserverranges

import (
	"context"
	"fmt"
	"sort"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Apiserver is one live kube-apiserver, as its identity Lease shows it.
type Apiserver struct {
	// ID is the identity Lease's name, the apiserver's ID.
	ID string
	// Holder is the Lease's holder identity (ID and a per-process UUID).
	Holder string
	// Ranges is the published value in canonical form, "" when none is published.
	Ranges string
}

// Report sorts the live apiservers by what they publish, each list by ID.
type Report struct {
	// Serving publish the wanted ranges.
	Serving []Apiserver
	// Other publish other ranges.
	Other []Apiserver
	// Unpublished publish nothing (upstream's apiserver, or a netfork one that
	// has not written it yet); they count as not rolled.
	Unpublished []Apiserver
}

// Rolled tells whether every live apiserver serves the wanted ranges.
func (r Report) Rolled() bool {
	return len(r.Serving) > 0 && len(r.Other) == 0 && len(r.Unpublished) == 0
}

// Check lists the kube-apiserver identity Leases in kube-system that have not
// expired at now and sorts them against want, a --service-cluster-ip-range value.
func Check(ctx context.Context, client kubernetes.Interface, want string, now time.Time) (Report, error) {
	if _, err := Parse(want); err != nil {
		return Report{}, err
	}
	want = canonical(want)
	leases, err := client.CoordinationV1().Leases(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{LabelSelector: IdentitySelector})
	if err != nil {
		return Report{}, fmt.Errorf("listing the kube-apiserver identity Leases: %w", err)
	}
	var r Report
	for _, l := range Live(leases.Items, now) {
		lease := &l
		a := Apiserver{ID: lease.Name}
		if lease.Spec.HolderIdentity != nil {
			a.Holder = *lease.Spec.HolderIdentity
		}
		value, published := lease.Annotations[Annotation]
		switch {
		case !published:
			r.Unpublished = append(r.Unpublished, a)
		case canonical(value) == want:
			a.Ranges = want
			r.Serving = append(r.Serving, a)
		default:
			a.Ranges = canonical(value)
			r.Other = append(r.Other, a)
		}
	}
	for _, list := range [][]Apiserver{r.Serving, r.Other, r.Unpublished} {
		sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	}
	return r, nil
}

// IdentitySelector selects the kube-apiservers' identity Leases: upstream's
// label (k8s.io/kubernetes/pkg/controlplane/apiserver's
// IdentityLeaseComponentLabelKey=KubeAPIServer, which a test holds this to),
// spelled here so that a client such as the kubectl plugin need not import
// the apiserver to read them.
const IdentitySelector = "apiserver.kubernetes.io/identity=kube-apiserver"

// Live are the leases whose holders may still be running at now.
func Live(leases []coordinationv1.Lease, now time.Time) []coordinationv1.Lease {
	var live []coordinationv1.Lease
	for _, l := range leases {
		if !expired(&l, now) {
			live = append(live, l)
		}
	}
	return live
}

// expired tells whether lease was last renewed longer than its duration before now.
func expired(lease *coordinationv1.Lease, now time.Time) bool {
	if lease.Spec.RenewTime == nil || lease.Spec.LeaseDurationSeconds == nil {
		return true
	}
	d := time.Duration(*lease.Spec.LeaseDurationSeconds) * time.Second
	return lease.Spec.RenewTime.Add(d).Before(now)
}
