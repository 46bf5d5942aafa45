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
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/netfork/netfork/test/bench/internal/cluster"
)

// collisionMetric counts, per ServiceCIDR and scope, the ClusterIP allocations that
// failed; a dynamic one whose Service was still created lost its address to another
// apiserver and was retried. netfork keeps upstream's name for it.
const collisionMetric = "kube_apiserver_clusterip_allocator_allocation_errors_total"

// etcdRequestMetric counts each apiserver's requests to etcd through its storage layer, by
// operation and resource: every object and bitmap read and write a Service costs.
const etcdRequestMetric = "etcd_requests_total"

// Counters are the counters a run reads from its apiservers' /metrics, summed over them,
// at one moment.
type Counters struct {
	// Collisions is collisionMetric{scope="dynamic"}.
	Collisions int64
	// EtcdRequests is etcdRequestMetric keyed by "operation resource", e.g. "delete ipaddresses".
	EtcdRequests map[string]float64
}

// ReadCounters scrapes every apiserver of the cluster and sums their counters.
func ReadCounters(ctx context.Context, cl *cluster.Cluster) (Counters, error) {
	total := Counters{EtcdRequests: map[string]float64{}}
	for _, a := range cl.APIServers {
		data, err := a.Client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		if err != nil {
			return total, fmt.Errorf("reading /metrics of apiserver pid %d: %w", a.Process.Pid(), err)
		}
		c, err := parseCounters(data)
		if err != nil {
			return total, fmt.Errorf("/metrics of apiserver pid %d: %w", a.Process.Pid(), err)
		}
		total.Collisions += c.Collisions
		for k, v := range c.EtcdRequests {
			total.EtcdRequests[k] += v
		}
	}
	return total, nil
}

// parseCounters reads the counters from one apiserver's metrics in Prometheus text format;
// a counter with no sample yet is 0.
func parseCounters(text []byte) (Counters, error) {
	c := Counters{EtcdRequests: map[string]float64{}}
	collisions, err := counterSamples(text, collisionMetric)
	if err != nil {
		return c, err
	}
	for labels, v := range collisions {
		if labelValue(labels, "scope") == "dynamic" {
			c.Collisions += int64(v)
		}
	}
	requests, err := counterSamples(text, etcdRequestMetric)
	if err != nil {
		return c, err
	}
	for labels, v := range requests {
		c.EtcdRequests[labelValue(labels, "operation")+" "+labelValue(labels, "resource")] += v
	}
	return c, nil
}

// PerService is the counters' growth from before to after, divided by n Services; only
// what grew is kept.
func PerService(before, after map[string]float64, n int) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d > 0 && n > 0 {
			out[k] = d / float64(n)
		}
	}
	return out
}

// counterSamples returns name's samples in Prometheus text format, keyed by their label
// set (the text between the braces).
func counterSamples(text []byte, name string) (map[string]float64, error) {
	samples := map[string]float64{}
	scanner := bufio.NewScanner(bytes.NewReader(text))
	scanner.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		labels, ok := strings.CutPrefix(line, name+"{")
		if !ok {
			continue
		}
		end := strings.LastIndex(labels, "}")
		if end < 0 {
			continue
		}
		fields := strings.Fields(labels[end+1:])
		if len(fields) == 0 {
			return nil, fmt.Errorf("%s: sample %q has no value", name, line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: sample %q: %w", name, line, err)
		}
		samples[labels[:end]] += v
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return samples, nil
}

// labelValue is label's value in a label set such as `operation="get",resource="services"`;
// empty when the set lacks it. Label values here hold no quotes or commas.
func labelValue(labels, label string) string {
	for _, pair := range strings.Split(labels, ",") {
		if v, ok := strings.CutPrefix(pair, label+"="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}
