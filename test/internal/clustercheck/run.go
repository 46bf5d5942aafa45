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

package clustercheck

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
)

// pollInterval is how often a check that waits for the cluster to settle looks again.
const pollInterval = 2 * time.Second

// Options say what Run checks and against what.
type Options struct {
	Client kubernetes.Interface
	// Etcd, when set, lets Run read the legacy bitmaps; EtcdPrefix is the apiservers'
	// --etcd-prefix (default /registry).
	Etcd       *clientv3.Client
	EtcdPrefix string
	// ClusterIPBitmaps says the ClusterIP bitmaps must agree with the Services, which
	// holds while a bitmap-only or dual-writing apiserver is live. Needs Etcd.
	ClusterIPBitmaps bool
	// IPAddresses is "true" (every ClusterIP must have its IPAddress), "false", or
	// "auto": true when any allocator IPAddress exists.
	IPAddresses string
	// Before, when set, is the snapshot whose Services must all still exist unchanged,
	// except those in IgnoreNamespaces (e.g. a load's churn).
	Before           *Snapshot
	IgnoreNamespaces []string
	// RepairInterval bounds the wait for IPAddresses (and an expected warning) to appear.
	RepairInterval time.Duration
	// Settle bounds the wait for the kubernetes Service and the bitmaps to agree.
	Settle time.Duration
	// Shape is what the kubernetes Service must look like; its Ranges default to the
	// kubernetes ServiceCIDR's.
	Shape Shape
	// ExpectWarnings must each show up as a Warning event reason since EventsSince
	// (default Before's time); ForbidWarnings must not.
	ExpectWarnings, ForbidWarnings []string
	EventsSince                    time.Time
}

// Row is one check's outcome.
type Row struct {
	Check  string
	Status string // ok, FAIL or skip
	Detail string
}

// Result is every check's outcome and the snapshot taken now.
type Result struct {
	Rows     []Row
	Snapshot *Snapshot
}

// Failed tells whether any check failed.
func (r *Result) Failed() bool {
	return slices.ContainsFunc(r.Rows, func(row Row) bool { return row.Status == "FAIL" })
}

// add records a check's outcome from its problems, detail describing success.
func (r *Result) add(check string, problems []string, detail string) {
	if len(problems) > 0 {
		r.Rows = append(r.Rows, Row{check, "FAIL", strings.Join(problems, "; ")})
		return
	}
	r.Rows = append(r.Rows, Row{check, "ok", detail})
}

// skip records a check that does not apply.
func (r *Result) skip(check, why string) {
	r.Rows = append(r.Rows, Row{check, "skip", why})
}

// Run checks the cluster and returns one row per check and a snapshot for the next
// comparison; an error means the cluster could not be read at all.
func Run(ctx context.Context, o Options) (*Result, error) {
	cs := o.Client
	now := time.Now()
	services, err := cs.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing Services: %w", err)
	}
	restarts, err := apiserverRestarts(ctx, cs)
	if err != nil {
		return nil, err
	}
	r := &Result{Snapshot: newSnapshot(now, services.Items, restarts)}

	if o.Before != nil {
		var p Problems
		kept := compareServices(&p, o.Before, r.Snapshot, func(s ServiceRecord) bool { return !slices.Contains(o.IgnoreNamespaces, s.Namespace) })
		r.add("Services kept", p.Result(), fmt.Sprintf("%d Services unchanged since %s", kept, o.Before.Time.Format(time.TimeOnly)))
	}
	var dupIPs, dupPorts Problems
	clusterIPs := Holders(&dupIPs, services.Items, "ClusterIP", ServiceClusterIPs)
	nodePorts := Holders(&dupPorts, services.Items, "NodePort", ServiceNodePorts)
	r.add("duplicate ClusterIPs", dupIPs.Result(), fmt.Sprintf("0 among %d ClusterIPs", len(clusterIPs)))
	r.add("duplicate NodePorts", dupPorts.Result(), fmt.Sprintf("0 among %d NodePorts", len(nodePorts)))

	if err := r.checkIPAddresses(ctx, o); err != nil {
		return nil, err
	}
	if err := r.checkBitmaps(ctx, o); err != nil {
		return nil, err
	}
	if err := r.checkKubernetesService(ctx, o); err != nil {
		return nil, err
	}
	if o.Before != nil && len(o.Before.Restarts) > 0 {
		var p Problems
		for pod, old := range o.Before.Restarts {
			if n, ok := restarts[pod]; ok && n > old {
				p.Addf("kube-apiserver pod %s restarted %d times", pod, n-old)
			}
		}
		r.add("apiserver restarts", p.Result(), fmt.Sprintf("none among %d kube-apiserver pods", len(restarts)))
	}
	if err := r.checkWarnings(ctx, o); err != nil {
		return nil, err
	}
	return r, nil
}

// checkIPAddresses waits up to RepairInterval until IPAddressProblems finds none.
func (r *Result) checkIPAddresses(ctx context.Context, o Options) error {
	const check = "ClusterIPs have IPAddresses"
	deadline := time.Now().Add(o.RepairInterval)
	for {
		problems, counts, mode, err := IPAddressProblems(ctx, o.Client, o.IPAddresses)
		if err != nil {
			return err
		}
		if !mode {
			r.skip(check, "no allocator IPAddress objects (bitmap-only cluster)")
			return nil
		}
		if len(problems) == 0 || !time.Now().Before(deadline) {
			r.add(check, problems, counts)
			return nil
		}
		if err := pause(ctx); err != nil {
			return err
		}
	}
}

// IPAddressProblems lists every ClusterIP without its IPAddress and every allocator
// IPAddress whose Service does not hold it; a problem counts only if a second look at
// the objects confirms it, so a create or delete in flight is not one. mode ("true",
// "false" or "auto": any allocator IPAddress exists) says whether to look at all;
// checked reports whether it did, counts what it looked at.
func IPAddressProblems(ctx context.Context, cs kubernetes.Interface, mode string) (problems []string, counts string, checked bool, err error) {
	services, err := cs.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, "", false, fmt.Errorf("listing Services: %w", err)
	}
	addresses, err := cs.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, "", false, fmt.Errorf("listing IPAddresses: %w", err)
	}
	if mode == "" || mode == "auto" {
		mode = fmt.Sprint(slices.ContainsFunc(addresses.Items, func(a networkingv1.IPAddress) bool {
			return a.Labels[ManagedByLabel] == ManagedByAllocator
		}))
	}
	if mode != "true" {
		return nil, "", false, nil
	}
	var ignored Problems // Duplicates are another check's.
	clusterIPs := Holders(&ignored, services.Items, "ClusterIP", ServiceClusterIPs)
	problems, err = confirmIPAddressProblems(ctx, cs, addresses.Items, clusterIPs)
	return problems, fmt.Sprintf("%d ClusterIPs, %d IPAddresses", len(clusterIPs), len(addresses.Items)), true, err
}

// confirmIPAddressProblems finds what CheckIPAddresses would, for allocator IPAddresses
// only, and keeps the problems a fresh read of the objects involved still shows.
func confirmIPAddressProblems(ctx context.Context, cs kubernetes.Interface, addresses []networkingv1.IPAddress, clusterIPs map[string]string) ([]string, error) {
	owners := map[string]string{}
	var p Problems
	for _, a := range addresses {
		ref := a.Spec.ParentRef
		if a.Labels[ManagedByLabel] != ManagedByAllocator || ref == nil || ref.Resource != "services" {
			continue
		}
		owner := ref.Namespace + "/" + ref.Name
		owners[CanonicalIP(a.Name)] = owner
		if holder, ok := clusterIPs[CanonicalIP(a.Name)]; ok && holder == owner {
			continue
		}
		still, err := ipAddressOrphaned(ctx, cs, a)
		if err != nil {
			return nil, err
		}
		if still {
			p.Addf("IPAddress %s is orphaned: its parent Service %s does not hold it", a.Name, owner)
		}
	}
	for ip, holder := range clusterIPs {
		if _, ok := owners[ip]; ok {
			continue
		}
		missing, err := ipAddressMissing(ctx, cs, ip, holder)
		if err != nil {
			return nil, err
		}
		if missing {
			p.Addf("ClusterIP %s of Service %s has no IPAddress", ip, holder)
		}
	}
	return p.Result(), nil
}

// ipAddressOrphaned reads a again and its parent Service: still there and not held.
func ipAddressOrphaned(ctx context.Context, cs kubernetes.Interface, a networkingv1.IPAddress) (bool, error) {
	cur, err := cs.NetworkingV1().IPAddresses().Get(ctx, a.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if cur.UID != a.UID {
		return false, nil
	}
	svc, err := cs.CoreV1().Services(a.Spec.ParentRef.Namespace).Get(ctx, a.Spec.ParentRef.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return !slices.Contains(ServiceClusterIPs(*svc), CanonicalIP(a.Name)), nil
}

// ipAddressMissing reads the Service holder (namespace/name) and the IPAddress ip again:
// the Service still holds ip and no IPAddress exists.
func ipAddressMissing(ctx context.Context, cs kubernetes.Interface, ip, holder string) (bool, error) {
	ns, name, _ := strings.Cut(holder, "/")
	svc, err := cs.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !slices.Contains(ServiceClusterIPs(*svc), ip) {
		return false, nil
	}
	_, err = cs.NetworkingV1().IPAddresses().Get(ctx, ip, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}

// checkBitmaps compares the bitmaps with the Services stored at the same etcd revision,
// up to Settle for allocations in flight to land.
func (r *Result) checkBitmaps(ctx context.Context, o Options) error {
	if o.Etcd == nil {
		r.skip("NodePort bitmap", "no etcd access (--etcd-endpoints)")
		if o.ClusterIPBitmaps {
			r.skip("ClusterIP bitmaps", "no etcd access (--etcd-endpoints)")
		}
		return nil
	}
	deadline := time.Now().Add(o.Settle)
	for {
		services, rev, err := etcdServices(ctx, o.Etcd, o.EtcdPrefix)
		if err != nil {
			return err
		}
		bitmaps := EtcdBitmaps{Client: o.Etcd, Prefix: o.EtcdPrefix, Revision: rev}
		var ipProblems, portProblems, ignored Problems
		clusterIPs := Holders(&ignored, services, "ClusterIP", ServiceClusterIPs)
		nodePorts := Holders(&ignored, services, "NodePort", ServiceNodePorts)
		ports, err := bitmaps.ReadBitmap(ctx, NodePortBitmapKey)
		if err != nil {
			return err
		}
		CheckNodePortBitmap(&portProblems, ports, nodePorts)
		leaked := 0
		if o.ClusterIPBitmaps {
			for i, key := range []string{ClusterIPBitmapKey, SecondaryClusterIPBitmapKey} {
				ra, err := bitmaps.ReadBitmap(ctx, key)
				if err != nil {
					return err
				}
				if ra != nil || i == 0 {
					leaked += CheckClusterIPBitmapMarks(&ipProblems, key, ra, clusterIPs)
				}
			}
		}
		if ipProblems.Len()+portProblems.Len() == 0 || !time.Now().Before(deadline) {
			r.add("NodePort bitmap", portProblems.Result(), fmt.Sprintf("agrees with %d NodePorts at etcd revision %d", len(nodePorts), rev))
			if o.ClusterIPBitmaps {
				r.add("ClusterIP bitmaps", ipProblems.Result(), fmt.Sprintf("mark all %d ClusterIPs at etcd revision %d; %d leaked marks (the bitmap repair loop releases them after 3 of its runs)", len(clusterIPs), rev, leaked))
			} else {
				r.skip("ClusterIP bitmaps", "not asked (no bitmap-only or dual-writing apiserver is live)")
			}
			return nil
		}
		if err := pause(ctx); err != nil {
			return err
		}
	}
}

// etcdServices reads every Service straight from etcd and returns the revision it read at.
func etcdServices(ctx context.Context, client *clientv3.Client, prefix string) ([]corev1.Service, int64, error) {
	key := EtcdBitmaps{Prefix: prefix}.prefix() + "/services/specs/"
	resp, err := client.Get(ctx, key, clientv3.WithPrefix())
	if err != nil {
		return nil, 0, fmt.Errorf("reading %s from etcd: %w", key, err)
	}
	var services []corev1.Service
	for _, kv := range resp.Kvs {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(kv.Value, nil, &corev1.Service{})
		if err != nil {
			return nil, 0, fmt.Errorf("decoding %s: %w", kv.Key, err)
		}
		if svc, ok := obj.(*corev1.Service); ok {
			services = append(services, *svc)
		}
	}
	return services, resp.Header.Revision, nil
}

// checkKubernetesService waits up to Settle for the kubernetes Service to take its shape.
func (r *Result) checkKubernetesService(ctx context.Context, o Options) error {
	shape := o.Shape
	if len(shape.Ranges) == 0 {
		cidr, err := o.Client.NetworkingV1().ServiceCIDRs().Get(ctx, "kubernetes", metav1.GetOptions{})
		if err == nil {
			for _, c := range cidr.Spec.CIDRs {
				if p, err := netip.ParsePrefix(c); err == nil {
					shape.Ranges = append(shape.Ranges, p)
				}
			}
		}
	}
	deadline := time.Now().Add(o.Settle)
	for {
		problems, err := KubernetesServiceProblems(ctx, o.Client, shape)
		if err != nil {
			return fmt.Errorf("reading the kubernetes Service: %w", err)
		}
		if len(problems) == 0 || !time.Now().Before(deadline) {
			svc, err := o.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
			detail := ""
			if err == nil {
				detail = fmt.Sprintf("%s %v", policyName(svc.Spec.IPFamilyPolicy), svc.Spec.ClusterIPs)
			}
			r.add("kubernetes Service", problems, detail)
			return nil
		}
		if err := pause(ctx); err != nil {
			return err
		}
	}
}

// checkWarnings counts Warning events by reason; an expected reason is waited for up to
// RepairInterval, a forbidden one fails at once.
func (r *Result) checkWarnings(ctx context.Context, o Options) error {
	since := o.EventsSince
	if since.IsZero() && o.Before != nil {
		since = o.Before.Time
	}
	deadline := time.Now().Add(o.RepairInterval)
	for {
		counts, err := WarningCounts(ctx, o.Client, since)
		if err != nil {
			return err
		}
		var p Problems
		missing := false
		for _, reason := range o.ExpectWarnings {
			if counts[reason] == 0 {
				missing = true
				p.Addf("no %s Warning event since %s", reason, since.Format(time.TimeOnly))
			}
		}
		for _, reason := range o.ForbidWarnings {
			if counts[reason] > 0 {
				p.Addf("%d %s Warning event(s) since %s", counts[reason], reason, since.Format(time.TimeOnly))
			}
		}
		if !missing || !time.Now().Before(deadline) {
			problems := p.Result()
			if len(problems) > 0 {
				problems = append(problems, "all: "+formatCounts(counts))
			}
			r.add("Warning events", problems, formatCounts(counts))
			return nil
		}
		if err := pause(ctx); err != nil {
			return err
		}
	}
}

// apiserverRestarts sums each kube-apiserver pod's container restarts (kind, kubeadm);
// a cluster without such pods (local-up) has none to count.
func apiserverRestarts(ctx context.Context, cs kubernetes.Interface) (map[string]int32, error) {
	pods, err := cs.CoreV1().Pods(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{LabelSelector: "component=kube-apiserver"})
	if err != nil {
		return nil, fmt.Errorf("listing kube-apiserver pods: %w", err)
	}
	restarts := map[string]int32{}
	for _, pod := range pods.Items {
		var n int32
		for _, c := range pod.Status.ContainerStatuses {
			n += c.RestartCount
		}
		restarts[pod.Name] = n
	}
	return restarts, nil
}

// pause waits one pollInterval or until ctx ends.
func pause(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(pollInterval):
		return nil
	}
}
