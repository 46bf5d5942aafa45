// Package metricsutil holds what netfork's ClusterIP and NodePort allocators
// and repair loops share about metrics: registering in the legacy registry next
// to upstream's collectors of the same names
// (k8s.io/kubernetes/pkg/registry/core/service/{ipallocator,portallocator} and
// their controller packages, v1.37.1), which register with MustRegister and so
// panic if netfork's got there first, and recording an allocator's upstream
// metrics (Recorder). It replaces nothing upstream; each package keeps its own
// descriptors.
package metricsutil
