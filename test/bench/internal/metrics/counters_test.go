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

package metrics

import (
	"strings"
	"testing"

	"github.com/netfork/netfork/test/bench/internal/stats"
)

const testMetrics = `# HELP kube_apiserver_clusterip_allocator_allocation_errors_total [ALPHA] Number of errors trying to allocate Cluster IPs
# TYPE kube_apiserver_clusterip_allocator_allocation_errors_total counter
kube_apiserver_clusterip_allocator_allocation_errors_total{cidr="10.96.0.0/12",scope="dynamic"} 7
kube_apiserver_clusterip_allocator_allocation_errors_total{cidr="10.128.0.0/24",scope="dynamic"} 2
kube_apiserver_clusterip_allocator_allocation_errors_total{cidr="10.96.0.0/12",scope="static"} 5
kube_apiserver_clusterip_allocator_allocation_total{cidr="10.96.0.0/12",scope="dynamic"} 1000
kube_apiserver_clusterip_allocator_allocation_errors_total_other{scope="dynamic"} 100
# TYPE etcd_requests_total counter
etcd_requests_total{group="",operation="get",resource="services"} 10
etcd_requests_total{group="",operation="delete",resource="services"} 4
etcd_requests_total{group="networking.k8s.io",operation="delete",resource="ipaddresses"} 3
etcd_requests_total_other{group="",operation="get",resource="services"} 99
`

func TestParseCounters(t *testing.T) {
	c, err := parseCounters([]byte(testMetrics))
	if err != nil {
		t.Fatal(err)
	}
	if c.Collisions != 9 {
		t.Errorf("collisions = %d, want 9, the two dynamic samples only", c.Collisions)
	}
	want := map[string]float64{"get services": 10, "delete services": 4, "delete ipaddresses": 3}
	if len(c.EtcdRequests) != len(want) {
		t.Errorf("etcd requests %v, want %v", c.EtcdRequests, want)
	}
	for k, v := range want {
		if c.EtcdRequests[k] != v {
			t.Errorf("etcd requests[%q] = %v, want %v", k, c.EtcdRequests[k], v)
		}
	}
	if c, err := parseCounters([]byte("# no samples yet\n")); err != nil || c.Collisions != 0 || len(c.EtcdRequests) != 0 {
		t.Errorf("parseCounters of counters with no samples = %+v, %v; want zeros", c, err)
	}
	_, err = parseCounters([]byte(collisionMetric + `{scope="dynamic"} many` + "\n"))
	if err == nil || !strings.Contains(err.Error(), "many") {
		t.Errorf("parseCounters of a malformed sample = %v, want an error quoting it", err)
	}
}

func TestPerServiceKeepsWhatGrew(t *testing.T) {
	before := map[string]float64{"get services": 10, "delete services": 4}
	after := map[string]float64{"get services": 30, "delete services": 4, "delete ipaddresses": 10}
	got := PerService(before, after, 10)
	if len(got) != 2 || got["get services"] != 2 || got["delete ipaddresses"] != 1 {
		t.Errorf("PerService = %v, want get services 2 and delete ipaddresses 1", got)
	}
	if stats.Sum(got) != 3 {
		t.Errorf("stats.Sum(%v) = %v, want 3", got, stats.Sum(got))
	}
}
