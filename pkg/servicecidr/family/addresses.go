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
	"net/netip"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

// refuseSecondary refuses while an IPAddress inside def's secondary CIDR
// exists: the hold covers the primary only, so the deletion controller would
// keep def Terminating for as long as that address is in use.
func (r *Runner) refuseSecondary(ctx context.Context, def *networkingv1.ServiceCIDR) error {
	secondary, err := renumber.ParseRanges(strings.Join(def.Spec.CIDRs[1:], ","))
	if err != nil {
		return fmt.Errorf("ServiceCIDR %s: %w", def.Name, err)
	}
	ips, err := r.client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing IPAddresses: %w", err)
	}
	var inUse []string
	for i := range ips.Items {
		if a, err := netip.ParseAddr(ips.Items[i].Name); err == nil && secondary.Contains(a) {
			inUse = append(inUse, fmt.Sprintf("%s (%s)", a, parent(&ips.Items[i])))
		}
	}
	if len(inUse) > 0 {
		return fmt.Errorf("ServiceCIDR %s cannot shrink while %d addresses of its secondary CIDR %s are in use: %s; run single-stack and roll the apiservers to one range first",
			def.Name, len(inUse), secondary, renumber.ListSome(inUse, 5))
	}
	return nil
}

// parent names the object an IPAddress belongs to.
func parent(ip *networkingv1.IPAddress) string {
	p := ip.Spec.ParentRef
	if p == nil {
		return "no parent"
	}
	kind := p.Resource
	if p.Group == "" && p.Resource == "services" {
		kind = "Service"
	}
	if p.Namespace == "" {
		return kind + " " + p.Name
	}
	return kind + " " + p.Namespace + "/" + p.Name
}
