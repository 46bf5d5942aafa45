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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

// refuseSecondary refuses while an object holds an IPAddress inside def's
// secondary CIDR: the hold covers the primary only, so the deletion
// controller would keep def Terminating for as long as that address is in
// use. IPAddresses whose Service no longer holds them are what an apiserver
// without the secondary range leaves when it makes a Service single-stack
// (upstream's registry does not release a family it has no range of); the
// apiservers' IPAddress repair loop deletes them after its grace period, so it
// waits for that, at most Options.Timeout.
func (r *Runner) refuseSecondary(ctx context.Context, def *networkingv1.ServiceCIDR) error {
	secondary, err := renumber.ParseRanges(strings.Join(def.Spec.CIDRs[1:], ","))
	if err != nil {
		return fmt.Errorf("ServiceCIDR %s: %w", def.Name, err)
	}
	var held, leaked []string
	check := func(ctx context.Context) (bool, error) {
		if held, leaked, err = r.secondaryInUse(ctx, secondary); err != nil {
			return false, err
		}
		return len(held) > 0 || len(leaked) == 0, nil
	}
	if done, err := check(ctx); err != nil {
		return err
	} else if !done && r.opts.DryRun == DryRunNone {
		fmt.Fprintf(r.opts.Log, "waiting for the apiservers' IPAddress repair loop to delete %s, which no Service holds\n", renumber.ListSome(leaked, 5))
		err := wait.PollUntilContextTimeout(ctx, r.poll, r.opts.Timeout, false, check)
		if err != nil && len(held) == 0 {
			return fmt.Errorf("after %s, still waiting for the apiservers' IPAddress repair loop to delete %s, which no Service holds: check that it runs (or delete them), then run replace-default again",
				r.opts.Timeout, renumber.ListSome(leaked, 5))
		}
	}
	if len(held) > 0 {
		return fmt.Errorf("ServiceCIDR %s cannot shrink while %d addresses of its secondary CIDR %s are in use: %s; run single-stack and roll the apiservers to one range first",
			def.Name, len(held), secondary, renumber.ListSome(held, 5))
	}
	return nil
}

// secondaryInUse lists the IPAddresses inside secondary: those their parent
// holds, named with it, and those it does not.
func (r *Runner) secondaryInUse(ctx context.Context, secondary renumber.Ranges) (held, leaked []string, err error) {
	ips, err := r.client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("listing IPAddresses: %w", err)
	}
	for i := range ips.Items {
		ip := &ips.Items[i]
		a, err := netip.ParseAddr(ip.Name)
		if err != nil || !secondary.Contains(a) {
			continue
		}
		holds, err := r.parentHolds(ctx, ip)
		if err != nil {
			return nil, nil, err
		}
		if holds {
			held = append(held, fmt.Sprintf("%s (%s)", a, parent(ip)))
		} else {
			leaked = append(leaked, a.String())
		}
	}
	return held, leaked, nil
}

// parentHolds tells whether ip's parent holds it: a Service with it among
// its ClusterIPs, or any object that is not a Service, which this cannot tell.
func (r *Runner) parentHolds(ctx context.Context, ip *networkingv1.IPAddress) (bool, error) {
	p := ip.Spec.ParentRef
	switch {
	case p == nil:
		return false, nil
	case p.Group != "" || p.Resource != "services":
		return true, nil
	}
	svc, err := r.client.CoreV1().Services(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading Service %s/%s, the parent of IPAddress %s: %w", p.Namespace, p.Name, ip.Name, err)
	}
	want, _ := netip.ParseAddr(ip.Name)
	for _, c := range renumber.ClusterIPs(svc) {
		if a, err := netip.ParseAddr(c); err == nil && a == want {
			return true, nil
		}
	}
	return false, nil
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
