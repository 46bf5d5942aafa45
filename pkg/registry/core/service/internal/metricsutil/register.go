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

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
)

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
