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
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/test/internal/clustercheck"

	"github.com/netfork/netfork/test/bench/internal/workload"
)

// settleInterval is how often CheckClusterSettled takes its snapshot again.
const settleInterval = time.Second

// ClusterSnapshot is what a cluster holds about the bench Services: a Snapshot without the
// legacy bitmaps, which only etcd serves, and the EndpointSlices of the bench namespace,
// which kube-controller-manager writes for each Service and its garbage collector deletes
// after it.
type ClusterSnapshot struct {
	Snapshot
	endpointSlices []discoveryv1.EndpointSlice
}

// TakeClusterSnapshot lists Services, IPAddresses and the bench namespace's EndpointSlices.
func TakeClusterSnapshot(ctx context.Context, client kubernetes.Interface) (ClusterSnapshot, error) {
	var s ClusterSnapshot
	if err := s.list(ctx, client); err != nil {
		return s, err
	}
	endpointSlices, err := client.DiscoveryV1().EndpointSlices(workload.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return s, fmt.Errorf("listing EndpointSlices: %w", err)
	}
	s.endpointSlices = endpointSlices.Items
	return s, nil
}

// CheckCluster returns every way s falls short of holding services bench Services: missing
// or extra Services, Services without their ClusterIP or NodePort, duplicate ClusterIPs or
// NodePorts, ClusterIPs without their IPAddress, orphaned IPAddresses, and EndpointSlices
// whose Service is gone.
func CheckCluster(s ClusterSnapshot, services int) []string {
	var p clustercheck.Problems
	checkServices(&p, s.Snapshot, Expectations{Services: services, IPAddresses: true})
	exists := map[string]bool{}
	for _, svc := range s.Services {
		if svc.Namespace == workload.Namespace {
			exists[svc.Name] = true
		}
	}
	for _, slice := range s.endpointSlices {
		if owner := slice.Labels[discoveryv1.LabelServiceName]; !exists[owner] {
			p.Addf("EndpointSlice %s/%s outlives its Service %q", slice.Namespace, slice.Name, owner)
		}
	}
	return p.Result()
}

// CheckClusterSettled takes snapshots until one passes CheckCluster or timeout has passed,
// since kube-controller-manager deletes EndpointSlices after their Services, and returns
// the last snapshot's problems and how long the cluster took to settle.
func CheckClusterSettled(ctx context.Context, client kubernetes.Interface, services int, timeout time.Duration) ([]string, time.Duration, error) {
	start := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s, err := TakeClusterSnapshot(ctx, client)
		if err != nil {
			return nil, time.Since(start), err
		}
		problems := CheckCluster(s, services)
		if len(problems) == 0 {
			return nil, time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			return problems, time.Since(start), ctx.Err()
		case <-deadline.C:
			return problems, time.Since(start), nil
		case <-time.After(settleInterval):
		}
	}
}
