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
	"fmt"
	"math/big"
	"net/netip"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/netfork/netfork/pkg/controlplane/apiserverranges"
)

// sourceRanges is the range the cluster is renumbered from: the recorded one,
// else the `kubernetes` ServiceCIDR's.
func sourceRanges(c *cluster, st *State) (Ranges, error) {
	if st != nil && st.Phase != PhaseFinished {
		return ParseRanges(strings.Join(st.From, ","))
	}
	if c.defaultCIDR == nil {
		return nil, fmt.Errorf("ServiceCIDR %s not found: no Service range to renumber from", DefaultServiceCIDRName)
	}
	if c.defaultCIDR.DeletionTimestamp != nil {
		return nil, fmt.Errorf("ServiceCIDR %s is being deleted: wait until the apiservers recreate it", DefaultServiceCIDRName)
	}
	return ParseRanges(strings.Join(c.defaultCIDR.Spec.CIDRs, ","))
}

// refuse is the one reason, if any, a renumber from `from` to `to` must not
// start or continue. It changes nothing.
func refuse(c *cluster, st *State, from, to Ranges, includeLB bool, now time.Time) error {
	if st != nil && st.Phase != PhaseFinished && (strings.Join(st.To, ",") != to.String() || strings.Join(st.From, ",") != from.String()) {
		return fmt.Errorf("a renumber from %s to %s is in progress (phase %s): finish or roll it back first", strings.Join(st.From, ","), strings.Join(st.To, ","), st.Phase)
	}
	if st != nil && st.Phase == PhaseRollingBack {
		return fmt.Errorf("a rollback of the renumber to %s is in progress: run rollback again", to)
	}
	if !to.sameFamilies(from) {
		return fmt.Errorf("--to %s: give one CIDR for each IP family of the Service range %s", to, from)
	}
	for _, p := range to {
		if o, _ := from.family(p.Addr().Is4()); overlaps(o, p) {
			return fmt.Errorf("--to %s overlaps the Service range %s being renumbered", p, o)
		}
		for _, n := range c.nodes {
			for _, s := range n.Spec.PodCIDRs {
				if q, err := netip.ParsePrefix(s); err == nil && overlaps(q.Masked(), p) {
					return fmt.Errorf("--to %s overlaps the Pod network: node %s has podCIDR %s", p, n.Name, s)
				}
			}
			for _, a := range n.Status.Addresses {
				if ip, err := netip.ParseAddr(a.Address); err == nil && p.Contains(ip) {
					return fmt.Errorf("--to %s holds node %s's %s %s", p, n.Name, a.Type, a.Address)
				}
			}
		}
		for _, q := range c.podSubnets() {
			if overlaps(q, p) {
				return fmt.Errorf("--to %s overlaps the Pod network %s (kubeadm-config networking.podSubnet, --cluster-cidr)", p, q)
			}
		}
	}
	if err := refuseApiservers(c, to, now); err != nil {
		return err
	}
	if err := refuseSize(c, st, from, to, includeLB); err != nil {
		return err
	}
	var lbs, taken []string
	for i := range c.services {
		svc := &c.services[i]
		if recordedService(st, svc) {
			continue
		}
		switch classify(svc, from, includeLB) {
		case LoadBalancer:
			lbs = append(lbs, svc.Namespace+"/"+svc.Name)
		case Move:
			for _, name := range []string{bridgeName(svc.Name), holderName(svc.Name)} {
				if b := c.service(svc.Namespace, name); b != nil && b.Labels[BridgeLabel] != svc.Name {
					taken = append(taken, b.Namespace+"/"+b.Name)
				}
			}
		}
	}
	current := st
	if current == nil || current.Phase == PhaseFinished {
		current = &State{}
	}
	if current.Kubernetes == nil && kubernetesAhead(c, current, to) != nil {
		if b := c.service(metav1.NamespaceDefault, KubernetesBridgeName); b != nil && b.Labels[BridgeLabel] != kubernetesName {
			taken = append(taken, b.Namespace+"/"+b.Name)
		}
	}
	if len(taken) > 0 {
		return fmt.Errorf("the Services %s hold the names the renumber needs for bridges and holders: rename them first", ListSome(taken, listed))
	}
	if len(lbs) > 0 {
		return fmt.Errorf("type LoadBalancer Services %s would lose their load balancers as ExternalName: move them with --include-load-balancers or by hand", ListSome(lbs, listed))
	}
	return nil
}

// refuseApiservers refuses unless every live apiserver says it serves a range holding to.
func refuseApiservers(c *cluster, to Ranges, now time.Time) error {
	live := apiserverranges.Live(c.leases, now)
	if len(live) == 0 {
		return fmt.Errorf("no live apiserver identity Lease in kube-system: cannot tell which Service ranges the apiservers serve")
	}
	for _, l := range live {
		holder := l.Name
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		v, ok := l.Annotations[apiserverranges.Annotation]
		if !ok {
			return fmt.Errorf("apiserver %s (Lease %s) does not say its Service range (no %s annotation: not netfork's, or not rolled): roll it with --service-cluster-ip-range=%s first", holder, l.Name, apiserverranges.Annotation, to)
		}
		served, err := ParseRanges(v)
		if err != nil {
			return fmt.Errorf("apiserver %s (Lease %s) annotation %s: %v", holder, l.Name, apiserverranges.Annotation, err)
		}
		for _, p := range to {
			s, ok := served.family(p.Addr().Is4())
			if !ok || !s.Contains(p.Addr()) || s.Bits() > p.Bits() {
				return fmt.Errorf("--to %s is outside what apiserver %s serves (%s): roll it with --service-cluster-ip-range=%s first", p, holder, v, to)
			}
		}
	}
	return nil
}

// refuseSize refuses a target too small for the Services that move, the
// `kubernetes` Service and what the target holds already.
func refuseSize(c *cluster, st *State, from, to Ranges, includeLB bool) error {
	for _, p := range to {
		need := 1 // the `kubernetes` Service, at the target's first address
		for i := range c.services {
			svc := &c.services[i]
			if classify(svc, from, includeLB) != Move && !recordedService(st, svc) {
				continue
			}
			for _, ip := range ClusterIPs(svc) {
				if a, err := netip.ParseAddr(ip); err == nil && a.Is4() == p.Addr().Is4() {
					need++
				}
			}
		}
		for a := range c.taken {
			if p.Contains(a) && !isNewOfRecord(st, a) {
				need++
			}
		}
		if have := usable(p); have.Cmp(big.NewInt(int64(need))) < 0 {
			return fmt.Errorf("--to %s is too small: %s usable addresses, %d needed (the Services to move, the `kubernetes` Service and the addresses it already holds)", p, have, need)
		}
	}
	return nil
}

func recordedService(st *State, svc *corev1.Service) bool {
	if st == nil {
		return false
	}
	for _, r := range st.Services {
		if r.Namespace == svc.Namespace && r.Name == svc.Name && r.UID == svc.UID {
			return true
		}
	}
	return false
}

func isNewOfRecord(st *State, a netip.Addr) bool {
	if st == nil {
		return false
	}
	for _, r := range st.Services {
		for _, ip := range r.NewClusterIPs {
			if canonical(ip) == a.String() {
				return true
			}
		}
	}
	return false
}

// listed is how many items an error names before it counts the rest.
const listed = 10

// ListSome names the first n items in order and counts the rest, so that an
// error stays one readable line however many objects it is about.
func ListSome(items []string, n int) string {
	sort.Strings(items)
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
