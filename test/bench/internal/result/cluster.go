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

package result

import (
	"fmt"
	"strings"
	"time"
)

// Components are the cluster components whose CPU time a cluster measurement reads, in
// the order the report lists them.
var Components = []string{
	"kube-apiserver", "etcd", "kube-controller-manager", "kube-scheduler",
	"kube-proxy", "kubelet", "coredns", "kindnetd", "containerd",
}

// ComponentCPU is the CPU seconds each of Components used in both phases, summed over the
// nodes (keys "node/component" of CreateCPU and DeleteCPU).
func (r ClusterResult) ComponentCPU() map[string]float64 {
	out := map[string]float64{}
	for _, phase := range []map[string]float64{r.CreateCPU, r.DeleteCPU} {
		for key, seconds := range phase {
			out[key[strings.LastIndexByte(key, '/')+1:]] += seconds
		}
	}
	return out
}

// TotalRestarts adds up the apiservers' container restarts.
func (r ClusterResult) TotalRestarts() (n int) {
	for _, c := range r.Restarts {
		n += int(c)
	}
	return n
}

// TotalFlaps adds up the apiservers' readiness flaps.
func (r ClusterResult) TotalFlaps() (n int) {
	for _, c := range r.Flaps {
		n += c
	}
	return n
}

// ClusterResult is what one measurement of a cluster's apiserver measured: N Services
// created and deleted through the cluster's endpoint, on the nodes of a kind cluster.
type ClusterResult struct {
	// APIServer names the apiserver the control planes ran (netfork, upstream).
	APIServer string `json:"apiserver"`
	// Topology is the cluster's (single, ha).
	Topology string `json:"topology"`
	N        int    `json:"n"`
	Workers  int    `json:"workers"`
	Round    int    `json:"round"`

	CreatesPerSec  float64   `json:"creates_per_s"`
	Create         LatencyMS `json:"create_latency"`
	CreateFailures int       `json:"create_failures"`
	// CreateCurve is the creates per second in each tenth of the create phase's calls.
	CreateCurve    []float64 `json:"create_rate_curve_per_s"`
	DeletesPerSec  float64   `json:"deletes_per_s"`
	Delete         LatencyMS `json:"delete_latency"`
	DeleteFailures int       `json:"delete_failures"`
	DeleteCurve    []float64 `json:"delete_rate_curve_per_s"`
	// SettleSeconds is how long after the delete phase the cluster took to pass its checks:
	// mostly kube-controller-manager's garbage collector deleting EndpointSlices.
	SettleSeconds float64 `json:"settle_s"`

	// CreateCPU and DeleteCPU are the CPU seconds each component used during each phase,
	// keyed "node/component" (cgroup or /proc of each node container).
	CreateCPU map[string]float64 `json:"create_cpu_s"`
	DeleteCPU map[string]float64 `json:"delete_cpu_s"`
	// Restarts are the kube-apiserver pods' container restarts during the measurement.
	Restarts map[string]int32 `json:"apiserver_restarts,omitempty"`
	// Flaps count, per apiserver endpoint, each time its /readyz went from ready to not
	// ready during the measurement; NotReadyPolls how many polls found it not ready.
	Flaps         map[string]int `json:"readiness_flaps,omitempty"`
	NotReadyPolls map[string]int `json:"not_ready_polls,omitempty"`

	Consistent bool     `json:"consistent"`
	Problems   []string `json:"problems,omitempty"`
	// Started is when the measurement started; WallSeconds its whole time, checks included.
	Started     time.Time `json:"started"`
	WallSeconds float64   `json:"wall_s"`
}

// Failf records why the measurement failed.
func (r *ClusterResult) Failf(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// Finish marks the measurement consistent only when nothing failed.
func (r *ClusterResult) Finish() {
	r.Consistent = len(r.Problems) == 0
	r.WallSeconds = time.Since(r.Started).Seconds()
}
