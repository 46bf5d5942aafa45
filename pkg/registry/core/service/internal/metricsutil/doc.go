// Package metricsutil registers netfork's Service allocator and repair metrics
// in the legacy registry next to upstream's collectors of the same names
// (k8s.io/kubernetes/pkg/registry/core/service/{ipallocator,portallocator} and
// their controller packages, v1.37.1), which register with MustRegister and so
// panic if netfork's got there first. It replaces nothing upstream; it holds
// the two registration policies netfork's packages share.
package metricsutil
