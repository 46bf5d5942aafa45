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
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
)

// Registration puts one package's collectors in the legacy registry once per
// process. Upstream's allocators and repair loops register collectors of the
// same names with MustRegister, which panics when netfork's got there first,
// and netfork builds some of upstream's (its core storage provider builds
// upstream's allocators before netfork replaces them), so whether and when
// upstream registers depends on upstream's code of the day.
type Registration struct {
	// Upstream, when set, has upstream register its collectors first (a
	// throwaway allocator's EnableMetrics, which builds nothing); netfork's then
	// take the names over (TakeOver) and are the ones exported, in either order
	// without a panic. Without it, collectors already registered are kept
	// (KeepFirst): for upstream's repair loops, which netfork no longer builds,
	// but a test may run next to netfork's.
	Upstream func()
	// What names the collectors in log lines, e.g. "ClusterIP allocator".
	What       string
	Collectors []metrics.Registerable

	once    sync.Once
	clashes map[string]error
}

// Register registers the collectors the first time it is called.
func (r *Registration) Register(logger klog.Logger) {
	r.once.Do(func() {
		if r.Upstream == nil {
			KeepFirst(logger, r.What, r.Collectors...)
			return
		}
		r.Upstream()
		r.clashes = TakeOver(logger, r.What+" metric not registered; netfork's collector counts unexported", r.Collectors...)
	})
}

// Clashes is, per metric, the error the legacy registry gave when netfork's
// collector was first registered over upstream's (see TakeOver): upstream's
// collector of the same descriptors (fully-qualified name, help, label names)
// gives prometheus's AlreadyRegisteredError; other descriptors, another error.
func (r *Registration) Clashes() map[string]error {
	return r.clashes
}

// TakeOver registers each of cs with RegisterOver, so that netfork's
// collectors are the ones exported, and returns per fully-qualified name the
// first attempt's error; a collector that still cannot be registered is logged
// with msg at V(2) and counts unexported.
func TakeOver(logger klog.Logger, msg string, cs ...metrics.Registerable) (clashes map[string]error) {
	clashes = make(map[string]error, len(cs))
	for _, c := range cs {
		clash, err := RegisterOver(c)
		clashes[c.FQName()] = clash
		if err != nil {
			logger.V(2).Info(msg, "metric", c.FQName(), "err", err)
		}
	}
	return clashes
}

// RegisterOver registers c in the legacy registry in place of a collector
// registered there with c's descriptors, returning the first attempt's error.
func RegisterOver(c metrics.Registerable) (clash, err error) {
	clash = legacyregistry.Register(c)
	if clash == nil {
		return nil, nil
	}
	if !legacyregistry.Registerer().Unregister(c) {
		return clash, clash
	}
	return clash, legacyregistry.Register(c)
}

// KeepFirst registers each of cs in the legacy registry, keeping a collector
// already registered under the same descriptors: "already registered" is logged
// as "<what> metric already registered; keeping the first" at V(2), any other
// error as "Cannot register a <what> metric".
func KeepFirst(logger klog.Logger, what string, cs ...metrics.Registerable) {
	for _, c := range cs {
		err := legacyregistry.Register(c)
		var already prometheus.AlreadyRegisteredError
		switch {
		case err == nil:
		case errors.As(err, &already):
			logger.V(2).Info(what+" metric already registered; keeping the first", "metric", c.FQName())
		default:
			logger.Error(err, "Cannot register a "+what+" metric", "metric", c.FQName())
		}
	}
}
