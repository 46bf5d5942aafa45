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

package consistency

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/test/internal/clustercheck"

	"github.com/netfork/netfork/test/bench/internal/workload"
)

// Snapshot is what the apiserver stores about Service allocations at one moment.
type Snapshot struct {
	Services    []corev1.Service
	ipAddresses []networkingv1.IPAddress
	// clusterIPBitmap and nodePortBitmap are the legacy bitmaps in etcd, nil when absent.
	clusterIPBitmap *corev1.RangeAllocation
	nodePortBitmap  *corev1.RangeAllocation
}

// Expectations say what a consistent snapshot of a run holds.
type Expectations struct {
	// Services is how many Services the bench namespace should hold.
	Services int
	// Headless says the bench Services have no ClusterIP and no NodePort.
	Headless bool
	// IPAddresses says every ClusterIP has its IPAddress object and no other exists.
	IPAddresses bool
	// ClusterIPBitmap says the legacy bitmap marks exactly the ClusterIPs in its range.
	ClusterIPBitmap bool
}

// TakeSnapshot lists Services and IPAddresses and reads the bitmaps.
func TakeSnapshot(ctx context.Context, client kubernetes.Interface, bitmaps clustercheck.BitmapReader) (Snapshot, error) {
	var s Snapshot
	if err := s.list(ctx, client); err != nil {
		return s, err
	}
	var err error
	if s.clusterIPBitmap, err = bitmaps.ReadBitmap(ctx, clusterIPBitmapKey); err != nil {
		return s, err
	}
	if s.nodePortBitmap, err = bitmaps.ReadBitmap(ctx, nodePortBitmapKey); err != nil {
		return s, err
	}
	return s, nil
}

// list lists every Service and IPAddress into s.
func (s *Snapshot) list(ctx context.Context, client kubernetes.Interface) error {
	services, err := client.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing Services: %w", err)
	}
	s.Services = services.Items
	addresses, err := client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing IPAddresses: %w", err)
	}
	s.ipAddresses = addresses.Items
	return nil
}

// Check returns every way s falls short of e: missing or extra Services, Services without
// their ClusterIP or NodePort, duplicate ClusterIPs or NodePorts, ClusterIPs without their
// IPAddress, orphaned IPAddresses, and bitmaps that disagree with the Services; none means
// the snapshot is consistent.
func Check(s Snapshot, e Expectations) []string {
	var p clustercheck.Problems
	clusterIPs, nodePorts := checkServices(&p, s, e)
	if e.ClusterIPBitmap {
		clustercheck.CheckClusterIPBitmap(&p, clusterIPBitmapKey, s.clusterIPBitmap, clusterIPs)
	}
	clustercheck.CheckNodePortBitmap(&p, s.nodePortBitmap, nodePorts)
	return p.Result()
}

// checkServices checks the Services and IPAddresses of s against e (what Check and
// CheckCluster share) and returns who holds each ClusterIP and each NodePort.
func checkServices(p *clustercheck.Problems, s Snapshot, e Expectations) (clusterIPs, nodePorts map[string]string) {
	checkBenchServices(p, s.Services, e)
	clusterIPs = clustercheck.Holders(p, s.Services, "ClusterIP", clustercheck.ServiceClusterIPs)
	nodePorts = clustercheck.Holders(p, s.Services, "NodePort", clustercheck.ServiceNodePorts)
	if e.IPAddresses {
		clustercheck.CheckIPAddresses(p, s.ipAddresses, clusterIPs)
	}
	return clusterIPs, nodePorts
}

// checkBenchServices checks the bench namespace holds e.Services Services, each with
// what its type needs.
func checkBenchServices(p *clustercheck.Problems, services []corev1.Service, e Expectations) {
	count := 0
	for _, svc := range services {
		if svc.Namespace != workload.Namespace {
			continue
		}
		count++
		ref := svc.Namespace + "/" + svc.Name
		switch {
		case e.Headless && svc.Spec.ClusterIP != corev1.ClusterIPNone:
			p.Addf("Service %s should be headless but has ClusterIP %q", ref, svc.Spec.ClusterIP)
		case !e.Headless && len(clustercheck.ServiceClusterIPs(svc)) == 0:
			p.Addf("Service %s has no ClusterIP", ref)
		}
		if svc.Spec.Type == corev1.ServiceTypeNodePort {
			for _, port := range svc.Spec.Ports {
				if port.NodePort == 0 {
					p.Addf("NodePort Service %s port %d has no nodePort", ref, port.Port)
				}
			}
		}
	}
	if count != e.Services {
		p.Addf("namespace %s holds %d Services, want %d", workload.Namespace, count, e.Services)
	}
}
