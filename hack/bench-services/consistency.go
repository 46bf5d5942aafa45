package main

import (
	"context"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// maxProblems bounds how many problems a check reports; one is enough to fail a run.
const maxProblems = 20

// snapshot is what the apiserver stores about Service allocations at one moment.
type snapshot struct {
	services    []corev1.Service
	ipAddresses []networkingv1.IPAddress
	// clusterIPBitmap and nodePortBitmap are the legacy bitmaps in etcd, nil when absent.
	clusterIPBitmap *corev1.RangeAllocation
	nodePortBitmap  *corev1.RangeAllocation
}

// expectations say what a consistent snapshot of a run holds.
type expectations struct {
	// services is how many Services the bench namespace should hold.
	services int
	// headless says the bench Services have no ClusterIP and no NodePort.
	headless bool
	// ipAddresses says every ClusterIP has its IPAddress object and no other exists.
	ipAddresses bool
	// clusterIPBitmap says the legacy bitmap marks exactly the ClusterIPs in its range.
	clusterIPBitmap bool
}

// bitmapReader reads a legacy bitmap (a RangeAllocation) by its key below /registry.
type bitmapReader interface {
	readBitmap(ctx context.Context, key string) (*corev1.RangeAllocation, error)
}

// takeSnapshot lists Services and IPAddresses and reads the bitmaps.
func takeSnapshot(ctx context.Context, client kubernetes.Interface, bitmaps bitmapReader) (snapshot, error) {
	var s snapshot
	services, err := client.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return s, fmt.Errorf("listing Services: %w", err)
	}
	s.services = services.Items
	addresses, err := client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return s, fmt.Errorf("listing IPAddresses: %w", err)
	}
	s.ipAddresses = addresses.Items
	if s.clusterIPBitmap, err = bitmaps.readBitmap(ctx, clusterIPBitmapKey); err != nil {
		return s, err
	}
	if s.nodePortBitmap, err = bitmaps.readBitmap(ctx, nodePortBitmapKey); err != nil {
		return s, err
	}
	return s, nil
}

// problems collects what a check finds, up to maxProblems plus a count of the rest.
type problems struct {
	list    []string
	dropped int
}

func (p *problems) addf(format string, args ...any) {
	if len(p.list) < maxProblems {
		p.list = append(p.list, fmt.Sprintf(format, args...))
		return
	}
	p.dropped++
}

// result returns the problems found, the last one counting those left out.
func (p *problems) result() []string {
	if p.dropped > 0 {
		return append(p.list, fmt.Sprintf("... and %d more problems", p.dropped))
	}
	return p.list
}

// check returns every way s falls short of e: missing or extra Services, Services without
// their ClusterIP or NodePort, duplicate ClusterIPs or NodePorts, ClusterIPs without their
// IPAddress, orphaned IPAddresses, and bitmaps that disagree with the Services; none means
// the snapshot is consistent.
func check(s snapshot, e expectations) []string {
	var p problems
	checkBenchServices(&p, s.services, e)
	clusterIPs := holders(&p, s.services, "ClusterIP", serviceClusterIPs)
	nodePorts := holders(&p, s.services, "NodePort", serviceNodePorts)
	if e.ipAddresses {
		checkIPAddresses(&p, s.ipAddresses, clusterIPs)
	}
	if e.clusterIPBitmap {
		checkClusterIPBitmap(&p, s.clusterIPBitmap, clusterIPs)
	}
	checkNodePortBitmap(&p, s.nodePortBitmap, nodePorts)
	return p.result()
}

// checkBenchServices checks the bench namespace holds e.services Services, each with
// what its type needs.
func checkBenchServices(p *problems, services []corev1.Service, e expectations) {
	count := 0
	for _, svc := range services {
		if svc.Namespace != benchNamespace {
			continue
		}
		count++
		ref := svc.Namespace + "/" + svc.Name
		switch {
		case e.headless && svc.Spec.ClusterIP != corev1.ClusterIPNone:
			p.addf("Service %s should be headless but has ClusterIP %q", ref, svc.Spec.ClusterIP)
		case !e.headless && len(serviceClusterIPs(svc)) == 0:
			p.addf("Service %s has no ClusterIP", ref)
		}
		if svc.Spec.Type == corev1.ServiceTypeNodePort {
			for _, port := range svc.Spec.Ports {
				if port.NodePort == 0 {
					p.addf("NodePort Service %s port %d has no nodePort", ref, port.Port)
				}
			}
		}
	}
	if count != e.services {
		p.addf("namespace %s holds %d Services, want %d", benchNamespace, count, e.services)
	}
}

// holders maps each key (ClusterIP or NodePort) to the Service that holds it, and reports
// a key two Services hold.
func holders(p *problems, services []corev1.Service, what string, keys func(corev1.Service) []string) map[string]string {
	held := map[string]string{}
	for _, svc := range services {
		ref := svc.Namespace + "/" + svc.Name
		seen := map[string]bool{} // A Service may repeat a NodePort across protocols.
		for _, key := range keys(svc) {
			if seen[key] {
				continue
			}
			seen[key] = true
			if other, ok := held[key]; ok {
				p.addf("%s %s is held by Services %s and %s", what, key, other, ref)
				continue
			}
			held[key] = ref
		}
	}
	return held
}

// serviceClusterIPs are a Service's allocated ClusterIPs, none for a headless Service.
func serviceClusterIPs(svc corev1.Service) []string {
	ips := svc.Spec.ClusterIPs
	if len(ips) == 0 && svc.Spec.ClusterIP != "" {
		ips = []string{svc.Spec.ClusterIP}
	}
	var out []string
	for _, ip := range ips {
		if ip != "" && ip != corev1.ClusterIPNone {
			out = append(out, canonicalIP(ip))
		}
	}
	return out
}

// serviceNodePorts are a Service's allocated NodePorts, as decimal strings.
func serviceNodePorts(svc corev1.Service) []string {
	var out []string
	for _, port := range svc.Spec.Ports {
		if port.NodePort != 0 {
			out = append(out, fmt.Sprint(port.NodePort))
		}
	}
	return out
}

// checkIPAddresses checks every ClusterIP has an IPAddress naming its Service as parent,
// and every IPAddress belongs to a Service that holds it.
func checkIPAddresses(p *problems, addresses []networkingv1.IPAddress, clusterIPs map[string]string) {
	owners := map[string]string{}
	for _, addr := range addresses {
		ref := addr.Spec.ParentRef
		if ref == nil || ref.Group != "" || ref.Resource != "services" {
			p.addf("IPAddress %s has no Service as parent", addr.Name)
			continue
		}
		owner := ref.Namespace + "/" + ref.Name
		owners[canonicalIP(addr.Name)] = owner
		if holder, ok := clusterIPs[canonicalIP(addr.Name)]; !ok || holder != owner {
			p.addf("IPAddress %s is orphaned: its parent Service %s does not hold it", addr.Name, owner)
		}
	}
	for ip, holder := range clusterIPs {
		if _, ok := owners[ip]; !ok {
			p.addf("ClusterIP %s of Service %s has no IPAddress", ip, holder)
		}
	}
}

// canonicalIP spells an address as IPAddress objects are named, leaving unparsable ones as given.
func canonicalIP(s string) string {
	addr, err := netip.ParseAddr(s)
	if err != nil {
		return s
	}
	return addr.String()
}
