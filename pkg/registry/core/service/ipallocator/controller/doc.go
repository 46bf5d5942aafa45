// Package controller is netfork's ClusterIP repair-loop seam, where upstream
// keeps k8s.io/kubernetes/pkg/registry/core/service/ipallocator/controller
// (v1.37.1): the core storage starts whatever repair loop it returns.
package controller
