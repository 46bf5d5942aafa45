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

package metricsutil

import (
	"slices"
	"time"

	"k8s.io/component-base/metrics"
)

// Scope is the kind of allocation, as upstream labels it: static when the
// caller asked for a value (Allocate), dynamic when AllocateNext picked it.
type Scope int

// The scopes of an allocation.
const (
	Static Scope = iota
	Dynamic
)

// scopeLabels are upstream's values of the scope label.
var scopeLabels = [...]string{Static: "static", Dynamic: "dynamic"}

// ScopeCounters are a counter vector's series, one per Scope, looked up once.
type ScopeCounters [len(scopeLabels)]metrics.CounterMetric

// NewScopeCounters looks up vec's series for each Scope; the labels before
// scope take the values lvs.
func NewScopeCounters(vec *metrics.CounterVec, lvs ...string) ScopeCounters {
	var c ScopeCounters
	for s, label := range scopeLabels {
		c[s] = vec.WithLabelValues(append(slices.Clone(lvs), label)...)
	}
	return c
}

// Recorder records one allocator's metrics; nil records nothing. Its series
// are looked up when it is built, so recording costs a few atomic operations
// and the allocator's O(1) counts, never a walk.
type Recorder struct {
	Allocated, Available metrics.GaugeMetric
	// Latency is nil where upstream records no allocation latency.
	Latency             metrics.ObserverMetric
	Allocations, Errors ScopeCounters
	// Used and Free are the allocator's O(1) counts.
	Used, Free func() int
}

// Start is when an allocation began, zero when no latency is recorded, so an
// allocator without it never reads the clock.
func (m *Recorder) Start() time.Time {
	if m == nil || m.Latency == nil {
		return time.Time{}
	}
	return time.Now()
}

// Succeeded records an allocation that began at start.
func (m *Recorder) Succeeded(s Scope, start time.Time) {
	if m == nil {
		return
	}
	m.Allocations[s].Inc()
	if m.Latency != nil {
		m.Latency.Observe(time.Since(start).Seconds())
	}
	m.SetCounts()
}

// Failed records a failed allocation.
func (m *Recorder) Failed(s Scope) {
	if m == nil {
		return
	}
	m.Errors[s].Inc()
}

// SetCounts sets the gauges from the allocator's counts.
func (m *Recorder) SetCounts() {
	if m == nil {
		return
	}
	m.Allocated.Set(float64(m.Used()))
	m.Available.Set(float64(m.Free()))
}
