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

package controller

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/netfork/netfork/pkg/registry/core/service/portallocator"
)

// Event reasons and the action are upstream's, so tools that watch for them keep working.
const (
	reasonNotAllocated     = "PortNotAllocated"
	reasonAlreadyAllocated = "PortAlreadyAllocated"
	reasonOutOfRange       = "PortOutOfRange"
	reasonFull             = "PortRangeFull"
	reasonUnknown          = "UnknownError"

	actionAllocation = "PortAllocation"
)

// markService marks svc's node ports in the rebuilt bitmap and reports those
// that cannot be. It fails the pass only when the bitmap itself misbehaves.
func (r *Repair) markService(ctx context.Context, svc *corev1.Service, p *pass) error {
	for _, port := range nodePortsOf(svc) {
		if err := r.markNodePort(ctx, svc, port, p); err != nil {
			return err
		}
	}
	return nil
}

func (r *Repair) markNodePort(ctx context.Context, svc *corev1.Service, port int, p *pass) error {
	err := p.Rebuilt.Allocate(port)
	var notInRange *portallocator.ErrNotInRange
	switch {
	case err == nil:
		if !p.Stored.Has(port) {
			r.report(ctx, svc, errorTypeRepair, reasonNotAllocated, "Port %d is not allocated; repairing", port)
		}
	case errors.Is(err, portallocator.ErrAllocated):
		r.report(ctx, svc, errorTypeDuplicate, reasonAlreadyAllocated, "Port %d was assigned to multiple services; please recreate service", port)
	case errors.As(err, &notInRange):
		r.report(ctx, svc, errorTypeOutOfRange, reasonOutOfRange, "Port %d is not within the port range %s; please recreate service", port, r.portRange)
	case errors.Is(err, portallocator.ErrFull):
		r.report(ctx, svc, errorTypeFull, reasonFull, "Port range %s is full; you must widen the port range in order to create new services", r.portRange)
		return fmt.Errorf("port range %s is full while marking node port %d of Service %s/%s: %w", r.portRange, port, svc.Namespace, svc.Name, err)
	default:
		r.report(ctx, svc, errorTypeUnknown, reasonUnknown, "Unable to allocate port %d due to an unknown error", port)
		return fmt.Errorf("marking node port %d of Service %s/%s: %w", port, svc.Namespace, svc.Name, err)
	}
	return nil
}

// report counts a problem with one of svc's node ports, records a Warning event on svc and logs it.
func (r *Repair) report(ctx context.Context, svc *corev1.Service, errorType, reason, note string, args ...any) {
	nodePortRepairPortErrors.WithLabelValues(errorType).Inc()
	r.recorder.Eventf(svc, nil, corev1.EventTypeWarning, reason, actionAllocation, note, args...)
	klog.FromContext(ctx).Error(nil, "NodePort repair", "service", klog.KObj(svc), "reason", reason, "message", fmt.Sprintf(note, args...))
}

// nodePortsOf lists the node ports svc holds, as upstream's repair counts them:
// one node port shared by ports of different protocols (DNS on TCP and UDP) is
// one allocation; the same node port twice with the same protocol is listed
// twice, so the second is reported as assigned to multiple Services. The
// health-check node port counts as TCP.
func nodePortsOf(svc *corev1.Service) []int {
	type use struct {
		port     int32
		protocol corev1.Protocol
	}
	var ports []int
	listed := map[int32]bool{}
	uses := map[use]bool{}
	add := func(port int32, protocol corev1.Protocol) {
		if port == 0 {
			return
		}
		u := use{port, protocol}
		if listed[port] && !uses[u] {
			uses[u] = true // another protocol on a listed port shares its allocation
			return
		}
		listed[port], uses[u] = true, true
		ports = append(ports, int(port))
	}
	for _, sp := range svc.Spec.Ports {
		add(sp.NodePort, sp.Protocol)
	}
	add(svc.Spec.HealthCheckNodePort, corev1.ProtocolTCP)
	return ports
}
