package main

import (
	"strings"
	"testing"
)

func TestSumDynamicCollisions(t *testing.T) {
	text := `# HELP kube_apiserver_clusterip_allocator_allocation_errors_total [ALPHA] Number of errors trying to allocate Cluster IPs
# TYPE kube_apiserver_clusterip_allocator_allocation_errors_total counter
kube_apiserver_clusterip_allocator_allocation_errors_total{cidr="10.96.0.0/12",scope="dynamic"} 7
kube_apiserver_clusterip_allocator_allocation_errors_total{cidr="10.128.0.0/24",scope="dynamic"} 2
kube_apiserver_clusterip_allocator_allocation_errors_total{cidr="10.96.0.0/12",scope="static"} 5
kube_apiserver_clusterip_allocator_allocation_total{cidr="10.96.0.0/12",scope="dynamic"} 1000
kube_apiserver_clusterip_allocator_allocation_errors_total_other{scope="dynamic"} 100
`
	got, err := sumDynamicCollisions([]byte(text))
	if err != nil || got != 9 {
		t.Errorf("sumDynamicCollisions = %d, %v; want 9, the two dynamic samples only", got, err)
	}
	if got, err := sumDynamicCollisions([]byte("# no samples yet\n")); err != nil || got != 0 {
		t.Errorf("sumDynamicCollisions of a counter with no samples = %d, %v; want 0", got, err)
	}
	_, err = sumDynamicCollisions([]byte(collisionMetric + `{scope="dynamic"} many` + "\n"))
	if err == nil || !strings.Contains(err.Error(), "many") {
		t.Errorf("sumDynamicCollisions of a malformed sample = %v, want an error quoting it", err)
	}
}
