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
	"time"

	"github.com/netfork/netfork/test/bench/internal/stats"
)

// Result is everything one run measured.
type Result struct {
	Contender string `json:"contender"`
	N         int    `json:"n"`
	Workers   int    `json:"workers"`
	// Apiservers is how many kube-apiservers shared the run's etcd and its workers.
	Apiservers int `json:"apiservers"`
	CIDRs      int `json:"cidrs"`
	Round      int `json:"round"`
	// CreateOnly says the run ended after the create phase: nothing of deleting was measured.
	CreateOnly bool `json:"create_only,omitempty"`
	// Source numbers the results.json a --report read the run from, so that its targets
	// pair runs of one benchmark only.
	Source int `json:"-"`

	CreatesPerSec  float64   `json:"creates_per_s"`
	Create         LatencyMS `json:"create_latency"`
	CreateFailures int       `json:"create_failures"`
	DeletesPerSec  float64   `json:"deletes_per_s"`
	Delete         LatencyMS `json:"delete_latency"`
	DeleteFailures int       `json:"delete_failures"`
	// PeakRSSMB is the apiservers' resident-set high-water marks, summed.
	PeakRSSMB float64 `json:"peak_rss_mb"`
	// Collisions are the dynamic ClusterIPs an allocator picked that another apiserver's
	// IPAddress already held, during the create phase: each a retried pick (netfork
	// retries the Service's commit; upstream tries its next address). From the
	// apiservers' kube_apiserver_clusterip_allocator_allocation_errors_total{scope="dynamic"},
	// which counts nothing else in a run whose creates all succeeded.
	Collisions int64 `json:"dynamic_allocation_collisions"`
	// EtcdPerCreate and EtcdPerDelete are the apiservers' etcd requests during each phase
	// (etcd_requests_total, keyed "operation resource"), divided by N: what one Service's
	// create or delete cost in etcd, allocations included.
	EtcdPerCreate map[string]float64 `json:"etcd_requests_per_create,omitempty"`
	EtcdPerDelete map[string]float64 `json:"etcd_requests_per_delete,omitempty"`
	// CreatePace and DeletePace are the request rates (per second, across the workers) the
	// phases were held to; 0 means as fast as the workers went.
	CreatePace float64 `json:"create_pace_per_s,omitempty"`
	DeletePace float64 `json:"delete_pace_per_s,omitempty"`
	// LiveHeapMB is the apiservers' live heap (inuse_space right after a forced GC) once
	// every Service exists, summed; HeapPerServiceKB is its growth over the create phase
	// per Service.
	LiveHeapMB       float64 `json:"live_heap_mb"`
	HeapPerServiceKB float64 `json:"live_heap_per_service_kb"`
	// AllocPerCreateKB and AllocPerDeleteKB are the bytes the apiservers allocated during
	// each phase (alloc_space growth), per Service: the garbage one Service makes.
	AllocPerCreateKB float64 `json:"alloc_per_create_kb"`
	AllocPerDeleteKB float64 `json:"alloc_per_delete_kb"`
	// CPUPerCreate and CPUPerDelete are the CPU time used during each phase per Service,
	// by the apiservers and by the benchmark's process (client workers and etcd).
	CPUPerCreate CPUMS `json:"cpu_per_create_ms"`
	CPUPerDelete CPUMS `json:"cpu_per_delete_ms"`
	// InExtraCIDRs counts ClusterIPs outside the default range: how the allocator spread them.
	InExtraCIDRs int `json:"clusterips_in_extra_cidrs"`

	Consistent bool `json:"consistent"`
	// Problems say why a run is not consistent: failed requests, a failed check, an error.
	Problems []string `json:"problems,omitempty"`
	// WallSeconds is the run's whole time, apiserver start and checks included.
	WallSeconds float64 `json:"wall_s"`
	// LoadAverage is the machine's 1-minute load average as the run started, since other
	// work on a shared machine shows up in every number above.
	LoadAverage float64 `json:"loadavg_1m_at_start"`
}

// LatencyMS are a phase's latency percentiles in milliseconds.
type LatencyMS struct {
	P50 float64 `json:"p50_ms"`
	P90 float64 `json:"p90_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// CPUMS is CPU time per Service in milliseconds, split by process.
type CPUMS struct {
	// APIServers is the kube-apiservers' CPU time, summed.
	APIServers float64 `json:"apiservers_ms"`
	// Harness is the benchmark's own: its client workers and its embedded etcd.
	Harness float64 `json:"etcd_and_client_ms"`
}

// String spells CPU per Service in the summary: the apiservers' and, after the plus, the
// benchmark's etcd and client workers'.
func (c CPUMS) String() string {
	return fmt.Sprintf("%.2f+%.2f", c.APIServers, c.Harness)
}

// ToMS converts a summary for the report.
func ToMS(s stats.LatencySummary) LatencyMS {
	return LatencyMS{P50: stats.Milliseconds(s.P50), P90: stats.Milliseconds(s.P90), P99: stats.Milliseconds(s.P99), Max: stats.Milliseconds(s.Max)}
}

// Failf records why the run failed.
func (r *Result) Failf(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// Finish marks the run consistent only when nothing failed.
func (r *Result) Finish(start time.Time) {
	r.Consistent = len(r.Problems) == 0
	r.WallSeconds = time.Since(start).Seconds()
}
