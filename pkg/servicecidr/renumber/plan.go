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
	"hash/fnv"
	"math/big"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Disposition says what the renumber does with a Service.
type Disposition string

const (
	// Move means it is flipped through ExternalName into the target range, bridged.
	Move Disposition = "move"
	// Moved means it is already in the target range (this renumber moved it).
	Moved Disposition = "moved"
	// Headless means it has no ClusterIP: nothing to do.
	Headless Disposition = "headless"
	// ExternalName means it has no ClusterIP: nothing to do.
	ExternalName Disposition = "external-name"
	// OtherRange means its ClusterIPs are outside the source range (another ServiceCIDR).
	OtherRange Disposition = "other-range"
	// KubernetesService means it is the apiservers' `kubernetes` Service at an
	// old address after the cut-over, when no bridge can take that address:
	// left to the operator and the apiservers. Before the cut-over it moves.
	KubernetesService Disposition = "left-to-apiservers"
	// LoadBalancer means ExternalName would drop its load balancer; moved only with --include-load-balancers.
	LoadBalancer Disposition = "load-balancer"
	// Deleting means it is being deleted; its old address goes with it.
	Deleting Disposition = "deleting"
	// Bridge means it is a bridge Service of this renumber.
	Bridge Disposition = "bridge"
)

// classify decides what the renumber does with svc.
func classify(svc *corev1.Service, from Ranges, includeLB bool) Disposition {
	switch {
	case svc.Labels[BridgeLabel] != "":
		return Bridge
	case svc.Namespace == metav1.NamespaceDefault && svc.Name == "kubernetes":
		return KubernetesService
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		return ExternalName
	case svc.Spec.ClusterIP == corev1.ClusterIPNone:
		return Headless
	}
	in := false
	for _, ip := range ClusterIPs(svc) {
		if a, err := netip.ParseAddr(ip); err == nil && from.Contains(a) {
			in = true
		}
	}
	switch {
	case !in:
		return OtherRange
	case svc.DeletionTimestamp != nil:
		return Deleting
	case svc.Spec.Type == corev1.ServiceTypeLoadBalancer && !includeLB:
		return LoadBalancer
	}
	return Move
}

// ClusterIPs are svc's allocated addresses, none for a headless or
// ExternalName Service: ClusterIPs, or ClusterIP where an old client left it alone.
func ClusterIPs(svc *corev1.Service) []string {
	if len(svc.Spec.ClusterIPs) > 0 {
		return svc.Spec.ClusterIPs
	}
	if svc.Spec.ClusterIP != "" && svc.Spec.ClusterIP != corev1.ClusterIPNone {
		return []string{svc.Spec.ClusterIP}
	}
	return nil
}

// picker chooses target addresses: the same host offset where free, else the
// lowest free one, never the target's first address (the `kubernetes`
// Service's once the apiservers move it).
type picker struct {
	from, to Ranges
	taken    map[netip.Addr]bool
}

func (p *picker) pick(old string) (string, error) {
	a, err := netip.ParseAddr(old)
	if err != nil || !p.from.Contains(a) {
		return old, nil // outside the source range: kept
	}
	src, _ := p.from.family(a.Is4())
	dst, ok := p.to.family(a.Is4())
	if !ok {
		return "", fmt.Errorf("%s: the target has no %s range", old, familyName(a))
	}
	if n, ok := atOffset(dst, offset(src, a)); ok && !p.taken[n] && offset(dst, n).Cmp(big.NewInt(1)) != 0 {
		p.taken[n] = true
		return n.String(), nil
	}
	limit := usable(dst)
	for off := big.NewInt(2); off.Cmp(limit) <= 0; off.Add(off, big.NewInt(1)) {
		n, _ := atOffset(dst, off)
		if !p.taken[n] {
			p.taken[n] = true
			return n.String(), nil
		}
	}
	return "", fmt.Errorf("%s: no free address left in %s", old, dst)
}

func (p *picker) pickAll(old []string) ([]string, error) {
	out := make([]string, len(old))
	for i, ip := range old {
		n, err := p.pick(ip)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func familyName(a netip.Addr) string {
	if a.Is4() {
		return "IPv4"
	}
	return "IPv6"
}

// bridgeName is the bridge Service's name for a Service: <name>-renumber-bridge,
// shortened with a hash when that exceeds a DNS label.
func bridgeName(name string) string {
	return suffixed(name, "-renumber-bridge")
}

// holderName is the holder Service's name for a Service: <name>-renumber-holder,
// shortened with a hash when that exceeds a DNS label.
func holderName(name string) string {
	return suffixed(name, "-renumber-holder")
}

// suffixed is name with suffix, its end replaced by a hash of it where the
// whole would exceed a DNS label, so that two long names stay distinct.
func suffixed(name, suffix string) string {
	if len(name)+len(suffix) <= 63 {
		return name + suffix
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	short := fmt.Sprintf("%s-%08x", strings.TrimRight(name[:63-len(suffix)-9], "-"), h.Sum32())
	return short + suffix
}

// serviceDNS is the cluster DNS name of the Service namespace/name, which a
// flipped Service's CNAME points at.
func serviceDNS(namespace, name, domain string) string {
	return fmt.Sprintf("%s.%s.svc.%s", name, namespace, domain)
}

// Plan is what a renumber does, printed by `plan` and before `renumber` acts.
type Plan struct {
	From     []string         `json:"from"`
	To       []string         `json:"to"`
	Phase    Phase            `json:"phase,omitempty"`
	Services []PlannedService `json:"services"`
	Steps    []string         `json:"steps"`
	// LeftToOperator are what the tool cannot do: kubelet restarts, the target
	// ServiceCIDR's end, the `kubernetes` Service when it is too late to move it.
	LeftToOperator []string `json:"leftToOperator,omitempty"`
	// Notes say what the plan checked beyond the refusals, or could not check:
	// the apiserver's certificate.
	Notes []string `json:"notes,omitempty"`
}

// PlannedService is one Service and what happens to it.
type PlannedService struct {
	Namespace     string      `json:"namespace"`
	Name          string      `json:"name"`
	Type          string      `json:"type"`
	Disposition   Disposition `json:"disposition"`
	OldClusterIPs []string    `json:"oldClusterIPs,omitempty"`
	NewClusterIPs []string    `json:"newClusterIPs,omitempty"`
	Bridge        string      `json:"bridge,omitempty"`
	Holder        string      `json:"holder,omitempty"`
}

// buildPlan lists every object and step of a renumber of c from st's ranges,
// with the records st holds and new ones for the Services not yet recorded.
func buildPlan(c *cluster, st *State, includeLB bool) (*Plan, []ServiceRecord, error) {
	from, _ := ParseRanges(strings.Join(st.From, ","))
	to, _ := ParseRanges(strings.Join(st.To, ","))
	pl := &Plan{From: st.From, To: st.To, Phase: st.Phase}
	recorded := map[string]*ServiceRecord{}
	for i := range st.Services {
		recorded[st.Services[i].key()] = &st.Services[i]
	}
	taken := map[netip.Addr]bool{}
	for a := range c.taken {
		taken[a] = true
	}
	for _, r := range st.Services {
		for _, ip := range r.NewClusterIPs {
			if a, err := netip.ParseAddr(ip); err == nil {
				taken[a] = true
			}
		}
	}
	pk := &picker{from: from, to: to, taken: taken}
	var fresh []ServiceRecord
	for i := range c.services {
		svc := &c.services[i]
		ps := PlannedService{Namespace: svc.Namespace, Name: svc.Name, Type: string(svc.Spec.Type), OldClusterIPs: ClusterIPs(svc)}
		if IsKubernetes(svc) {
			pl.Services = append(pl.Services, plannedKubernetes(c, st, svc, to))
			continue
		}
		rec := recorded[svc.Namespace+"/"+svc.Name]
		if rec != nil && rec.UID == svc.UID {
			ps.Disposition, ps.OldClusterIPs, ps.NewClusterIPs, ps.Bridge, ps.Holder = Move, rec.OldClusterIPs, rec.NewClusterIPs, rec.Bridge, rec.Holder
			if equalIPs(ClusterIPs(svc), rec.NewClusterIPs) {
				ps.Disposition = Moved
			}
			pl.Services = append(pl.Services, ps)
			continue
		}
		ps.Disposition = classify(svc, from, includeLB)
		if ps.Disposition == Move {
			news, err := pk.pickAll(ps.OldClusterIPs)
			if err != nil {
				return nil, nil, fmt.Errorf("choosing addresses for Service %s/%s: %w", svc.Namespace, svc.Name, err)
			}
			r := ServiceRecord{
				Namespace: svc.Namespace, Name: svc.Name, UID: svc.UID,
				OldClusterIPs: ps.OldClusterIPs, NewClusterIPs: news,
				Spec: *svc.Spec.DeepCopy(), ManagedFields: svc.ManagedFields,
				Holder: holderName(svc.Name),
			}
			if st.CutOver == nil {
				r.Bridge = bridgeName(svc.Name)
			}
			fresh = append(fresh, r)
			ps.NewClusterIPs, ps.Bridge, ps.Holder = news, r.Bridge, r.Holder
		}
		pl.Services = append(pl.Services, ps)
	}
	if rec := st.Kubernetes; rec != nil && c.service(rec.Namespace, rec.Name) == nil {
		// deleted, not yet recreated by the apiservers
		pl.Services = append(pl.Services, PlannedService{Namespace: rec.Namespace, Name: rec.Name, Type: string(rec.Spec.Type),
			Disposition: Move, OldClusterIPs: rec.OldClusterIPs, NewClusterIPs: rec.NewClusterIPs, Bridge: rec.Bridge})
	}
	pl.Steps = planSteps(c, st, pl, from, to)
	pl.LeftToOperator = leftToOperator(c, st, to)
	return pl, fresh, nil
}

// plannedKubernetes is what happens to the `kubernetes` Service svc: moved by
// deleting it, its bridge taking its old addresses, while the apiservers
// recreate it at the target's first addresses.
func plannedKubernetes(c *cluster, st *State, svc *corev1.Service, to Ranges) PlannedService {
	ps := PlannedService{Namespace: svc.Namespace, Name: svc.Name, Type: string(svc.Spec.Type), OldClusterIPs: ClusterIPs(svc)}
	switch rec := st.Kubernetes; {
	case rec != nil:
		ps.OldClusterIPs, ps.NewClusterIPs, ps.Bridge = rec.OldClusterIPs, rec.NewClusterIPs, rec.Bridge
		ps.Disposition = Move
		if allIn(ClusterIPs(svc), to) && c.service(rec.Namespace, rec.Bridge) != nil {
			ps.Disposition = Moved
		}
	case allIn(ClusterIPs(svc), to):
		ps.Disposition = OtherRange
	case st.CutOver != nil:
		ps.Disposition = KubernetesService
	default:
		ps.Disposition, ps.NewClusterIPs, ps.Bridge = Move, kubernetesNewIPs(svc, to), KubernetesBridgeName
	}
	return ps
}

func planSteps(c *cluster, st *State, pl *Plan, from, to Ranges) []string {
	var steps []string
	add := func(format string, args ...any) { steps = append(steps, fmt.Sprintf(format, args...)) }
	// done marks a step a previous run has made.
	done := func(made bool) string {
		if made {
			return "(done) "
		}
		return ""
	}
	past := st.Phase == PhaseRenumbered || st.Phase == PhaseFinished
	oldGone := c.defaultCIDR == nil || c.defaultCIDR.DeletionTimestamp != nil || strings.Join(c.defaultCIDR.Spec.CIDRs, ",") != from.String()
	add("%srecord the renumber %s -> %s in ConfigMap %s/%s before each change", done(st.Phase != ""), from, to, StateNamespace, StateName)
	add("%screate ServiceCIDR %s with %s", done(c.target != nil && st.Phase != ""), TargetServiceCIDRName, to)
	var kubernetes *PlannedService
	for i, ps := range pl.Services {
		if ps.Namespace == metav1.NamespaceDefault && ps.Name == kubernetesName {
			kubernetes = &pl.Services[i]
			continue
		}
		switch ps.Disposition {
		case Move:
			add("Service %s/%s: %s", ps.Namespace, ps.Name, moveSteps(ps, st.ClusterDomain))
		case LoadBalancer:
			add("Service %s/%s: type LoadBalancer, not moved (refused without --include-load-balancers: ExternalName would drop its load balancer)", ps.Namespace, ps.Name)
		case Deleting:
			add("Service %s/%s: being deleted, not moved; its address goes with it", ps.Namespace, ps.Name)
		}
	}
	for _, u := range configUpdates(c, st, pl) {
		add("ConfigMap %s/%s key %s: %s", metav1.NamespaceSystem, u.Name, u.Key, u.summary)
	}
	if k := kubernetes; k != nil && (k.Disposition == Move || k.Disposition == Moved) {
		add("%sService %s/%s (the apiservers'): record it; delete it and at once create Service %s/%s at %s, which the apiservers' service-bridge controller gives their endpoints; wait until the apiservers recreate Service %s/%s at %s",
			done(k.Disposition == Moved), k.Namespace, k.Name, k.Namespace, k.Bridge, strings.Join(k.OldClusterIPs, ","), k.Namespace, k.Name, strings.Join(k.NewClusterIPs, ","))
	}
	add("%scut-over: delete ServiceCIDR %s (%s); it stays Terminating, allocating nothing, while the bridges hold old addresses", done(st.Phase != "" && oldGone), DefaultServiceCIDRName, from)
	add("%smove every Service created in the old range meanwhile (no bridge after the cut-over)", done(past))
	add("%sfinish (after the grace period): refuse while pods started before the cut-over (not hostNetwork) run; delete every bridge Service; delete ServiceCIDR %s once ServiceCIDR %s holds %s", done(st.Phase == PhaseFinished), TargetServiceCIDRName, DefaultServiceCIDRName, to)
	return steps
}

// moveSteps are the steps that move the Service ps, as the plan prints them.
func moveSteps(ps PlannedService, domain string) string {
	var steps []string
	add := func(format string, args ...any) { steps = append(steps, fmt.Sprintf(format, args...)) }
	olds, news := strings.Join(ps.OldClusterIPs, ","), strings.Join(ps.NewClusterIPs, ",")
	cname := ps.Bridge
	if ps.Holder != "" {
		add("create Service %s/%s at %s a kube-proxy sync ahead", ps.Namespace, ps.Holder, news)
		cname = ps.Holder
	}
	add("type ExternalName -> %s", serviceDNS(ps.Namespace, cname, domain))
	if ps.Bridge != "" {
		add("create Service %s/%s at %s", ps.Namespace, ps.Bridge, olds)
		if ps.Holder != "" {
			add("ExternalName -> %s", serviceDNS(ps.Namespace, ps.Bridge, domain))
		}
	}
	if ps.Holder != "" {
		add("delete Service %s/%s", ps.Namespace, ps.Holder)
	}
	add("back to type %s at %s", ps.Type, news)
	out := strings.Join(steps, "; ")
	if ps.Bridge == "" {
		out += fmt.Sprintf(" (after the cut-over: no bridge keeps %s)", olds)
	}
	return out
}

// leftToOperator lists what the renumber leaves to the operator and the apiservers.
func leftToOperator(c *cluster, st *State, to Ranges) []string {
	var out []string
	if c.kubelet != nil {
		names := make([]string, 0, len(c.nodes))
		for _, n := range c.nodes {
			names = append(names, n.Name)
		}
		out = append(out, fmt.Sprintf("restart kubelet on every node (%s): it reads clusterDNS only at start", strings.Join(names, ", ")))
	}
	// Too late to bridge: a renumber recorded past its cut-over without moving it.
	if k := c.service(metav1.NamespaceDefault, kubernetesName); k != nil && st.Kubernetes == nil && st.CutOver != nil && !allIn(ClusterIPs(k), to) {
		out = append(out, fmt.Sprintf("Service default/kubernetes (at %s) is the apiservers': once no client uses its address, delete it and the apiservers recreate it at %s",
			strings.Join(ClusterIPs(k), ","), strings.Join(kubernetesNewIPs(k, to), ",")))
	}
	return out
}

func equalIPs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, errx := netip.ParseAddr(a[i])
		y, erry := netip.ParseAddr(b[i])
		if errx != nil || erry != nil || x != y {
			return false
		}
	}
	return true
}
