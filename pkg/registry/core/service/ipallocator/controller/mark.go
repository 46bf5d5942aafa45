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
	"k8s.io/kubernetes/pkg/apis/core/v1/helper"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
)

// Event reasons and actions are upstream's, so tools that watch for them keep working.
const (
	reasonNotValid         = "ClusterIPNotValid"
	reasonNotAllocated     = "ClusterIPNotAllocated"
	reasonAlreadyAllocated = "ClusterIPAlreadyAllocated"
	reasonOutOfRange       = "ClusterIPOutOfRange"
	reasonFull             = "ServiceCIDRFull"
	reasonUnknown          = "UnknownError"

	actionValidation = "ClusterIPValidation"
	actionAllocation = "ClusterIPAllocation"
)

// markService marks svc's ClusterIPs in the rebuilt bitmaps and reports those
// that cannot be. It fails the pass only when the bitmap itself misbehaves.
func (r *Repair) markService(ctx context.Context, svc *corev1.Service, passes map[corev1.IPFamily]*familyPass) error {
	if !helper.IsServiceIPSet(svc) {
		return nil
	}
	for _, s := range svc.Spec.ClusterIPs {
		if err := r.markClusterIP(ctx, svc, s, passes); err != nil {
			return err
		}
	}
	return nil
}

func (r *Repair) markClusterIP(ctx context.Context, svc *corev1.Service, s string, passes map[corev1.IPFamily]*familyPass) error {
	ip := netutils.ParseIPSloppy(s)
	if ip == nil {
		r.report(ctx, svc, errorTypeInvalid, reasonNotValid, actionValidation,
			"Cluster IP %s is not a valid IP; please recreate service", s)
		return nil
	}
	family := ipFamilyOf(ip)
	p, ok := passes[family]
	if !ok {
		r.report(ctx, svc, errorTypeInvalid, reasonNotValid, actionValidation,
			"Cluster IP %s(%s) is of ip family that is no longer configured on cluster; please recreate service", ip, family)
		return nil
	}

	err := p.Rebuilt.Allocate(ip)
	var notInRange *ipallocator.ErrNotInRange
	switch {
	case err == nil:
		if !p.Stored.Has(ip) {
			r.report(ctx, svc, errorTypeRepair, reasonNotAllocated, actionAllocation,
				"Cluster IP [%v]:%s is not allocated; repairing", family, ip)
		}
	case errors.Is(err, ipallocator.ErrAllocated):
		r.report(ctx, svc, errorTypeDuplicate, reasonAlreadyAllocated, actionAllocation,
			"Cluster IP [%v]:%s was assigned to multiple services; please recreate service", family, ip)
	case errors.As(err, &notInRange):
		r.report(ctx, svc, errorTypeOutOfRange, reasonOutOfRange, actionAllocation,
			"Cluster IP [%v]:%s is not within the service CIDR %s; please recreate service", family, ip, p.Range())
	case errors.Is(err, ipallocator.ErrFull):
		r.report(ctx, svc, errorTypeFull, reasonFull, actionAllocation,
			"Service CIDR %v is full; you must widen the CIDR in order to create new services for Cluster IP [%v]:%s", p.Range(), family, ip)
		return fmt.Errorf("service CIDR %s is full while marking Cluster IP %s of Service %s/%s: %w", p.Range(), ip, svc.Namespace, svc.Name, err)
	default:
		r.report(ctx, svc, errorTypeUnknown, reasonUnknown, actionAllocation,
			"Unable to allocate cluster IP [%v]:%s due to an unknown error", family, ip)
		return fmt.Errorf("marking Cluster IP %s of Service %s/%s: %w", ip, svc.Namespace, svc.Name, err)
	}
	return nil
}

// report counts a problem with one of svc's ClusterIPs, records a Warning event on svc and logs it.
func (r *Repair) report(ctx context.Context, svc *corev1.Service, errorType, reason, action, note string, args ...any) {
	clusterIPRepairIPErrors.WithLabelValues(errorType).Inc()
	r.recorder.Eventf(svc, nil, corev1.EventTypeWarning, reason, action, note, args...)
	klog.FromContext(ctx).Error(nil, "ClusterIP repair", "service", klog.KObj(svc), "reason", reason, "message", fmt.Sprintf(note, args...))
}
