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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

// refuseRenumber refuses while a renumber is in progress: it restores each
// Service it moves from the spec it recorded, IP families included, and its
// bridges keep the old families.
func (r *Runner) refuseRenumber(ctx context.Context) error {
	st, err := renumber.Recorded(ctx, r.client)
	if err != nil {
		return err
	}
	if st != nil && st.Phase != renumber.PhaseFinished {
		return fmt.Errorf("a renumber %s -> %s is in progress (phase %s, ConfigMap %s/%s): finish or roll it back first",
			strings.Join(st.From, ","), strings.Join(st.To, ","), st.Phase, renumber.StateNamespace, renumber.StateName)
	}
	return nil
}

// refuseSingleDefault refuses unless the `kubernetes` ServiceCIDR holds two
// CIDRs, which the apiservers add once they are rolled to two ranges: before
// that no apiserver can give a Service a second ClusterIP.
func (r *Runner) refuseSingleDefault(ctx context.Context) error {
	name := renumber.DefaultServiceCIDRName
	sc, err := r.client.NetworkingV1().ServiceCIDRs().Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("ServiceCIDR %s not found: the apiservers recreate it from their --service-cluster-ip-range; run again once it is back", name)
	case err != nil:
		return fmt.Errorf("reading ServiceCIDR %s: %w", name, err)
	case sc.DeletionTimestamp != nil:
		return fmt.Errorf("ServiceCIDR %s is being deleted: run replace-default to its end first", name)
	case len(sc.Spec.CIDRs) < 2:
		return fmt.Errorf("ServiceCIDR %s has one CIDR (%s): roll every apiserver to two ranges first (--service-cluster-ip-range=%s,<CIDR of the other family>)",
			name, strings.Join(sc.Spec.CIDRs, ","), strings.Join(sc.Spec.CIDRs, ","))
	}
	return nil
}
