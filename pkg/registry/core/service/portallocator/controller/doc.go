// Package controller is netfork's NodePort repair-loop seam, where upstream
// keeps k8s.io/kubernetes/pkg/registry/core/service/portallocator/controller (v1.37.1).
package controller
