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
	"net"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/apis/core/v1/helper"
	netutils "k8s.io/utils/net"
)

// syncService checks that each of the Service's ClusterIPs has an IPAddress
// that points at it, creating or repairing the ones that do not, and reports
// the ClusterIPs that cannot have one.
func (r *RepairIPAddress) syncService(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	svc, err := r.services.Services(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		// Its IPAddresses were queued when the deletion was seen.
		r.outOfRange.remove(key)
		return nil
	}
	if err != nil {
		return err
	}
	if !helper.IsServiceIPSet(svc) {
		r.outOfRange.remove(key)
		return nil
	}

	var errs []error
	outOfRange := false
	for _, s := range svc.Spec.ClusterIPs {
		ip := netutils.ParseIPSloppy(s)
		if ip == nil {
			r.report(ctx, svc, errorTypeInvalid, reasonNotValid, actionValidation,
				"Cluster IP %s is not a valid IP; please recreate Service", s)
			continue
		}
		if !r.cidrs.containsIP(ip) {
			outOfRange = true
			r.report(ctx, svc, errorTypeOutOfRange, reasonOutOfRange, actionAllocation,
				"Cluster IP [%v]: %s is not within any configured Service CIDR; please recreate service", ipFamilyOf(ip), ip)
			continue
		}
		if err := r.syncClusterIP(ctx, svc, ip); err != nil {
			errs = append(errs, err)
		}
	}
	if outOfRange {
		r.outOfRange.add(key)
	} else {
		r.outOfRange.remove(key)
	}
	return errors.Join(errs...)
}

// syncClusterIP makes sure the IPAddress of ip exists and points at svc.
func (r *RepairIPAddress) syncClusterIP(ctx context.Context, svc *corev1.Service, ip net.IP) error {
	a, err := r.ipAddresses.Get(ip.String())
	if apierrors.IsNotFound(err) {
		return r.allocate(ctx, svc, ip)
	}
	if err != nil {
		return r.unknownClusterIPError(ctx, svc, ip, err)
	}
	return r.checkIPAddress(ctx, svc, ip, a)
}

// allocate creates the missing IPAddress of svc's ip, as the allocators do.
//
// The caches may lag behind the Service storage, which deletes a Service (or
// drops a ClusterIP from it) before it releases the address. So the IPAddress
// is first confirmed missing through the API and only then the Service
// confirmed still to hold ip: an address released before the first read
// belongs to a Service the second read no longer finds holding it.
func (r *RepairIPAddress) allocate(ctx context.Context, svc *corev1.Service, ip net.IP) error {
	a, err := r.ipAddressSince(ctx, ip, svc.ResourceVersion)
	if err == nil {
		return r.checkIPAddress(ctx, svc, ip, a)
	}
	if !apierrors.IsNotFound(err) {
		return r.unknownClusterIPError(ctx, svc, ip, err)
	}
	live, err := r.liveHolder(ctx, svc, ip)
	if err != nil || live == nil {
		return err
	}

	_, err = r.client.NetworkingV1().IPAddresses().Create(ctx, newIPAddress(ip, live), metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// Someone allocated it meanwhile: check whose it is.
		a, err := r.client.NetworkingV1().IPAddresses().Get(ctx, ip.String(), metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading IPAddress %s after it was created concurrently: %w", ip, err)
		}
		return r.checkIPAddress(ctx, live, ip, a)
	}
	if err != nil {
		return fmt.Errorf("creating IPAddress %s for Service %s/%s: %w", ip, live.Namespace, live.Name, err)
	}
	// Reported once repaired, so that a create retried while the apiserver
	// starts does not report it at every attempt.
	r.report(ctx, live, errorTypeRepair, reasonNotAllocated, actionAllocation,
		"Cluster IP [%v]: %s is not allocated; repairing", ipFamilyOf(ip), ip)
	r.checkBitmapOnly(ctx, live, ip)
	return nil
}

// ipAddressSince reads the IPAddress of ip as it is at resourceVersion rv, that
// of the Service that holds ip, or later.
//
// Every allocator writes a ClusterIP's IPAddress no later than its Service:
// in the same etcd transaction, or before it. So any state from rv on tells a
// missing IPAddress as well as the latest does, and allocate's argument holds
// for it. The apiserver serves such a read from its watch cache, where the
// IPAddress index lagging behind the Service informer would otherwise cost
// an etcd read for every Service seen first. A cache that cannot catch up
// with rv in time answers that rv is too large; then etcd is read.
func (r *RepairIPAddress) ipAddressSince(ctx context.Context, ip net.IP, rv string) (*networkingv1.IPAddress, error) {
	a, err := r.client.NetworkingV1().IPAddresses().Get(ctx, ip.String(), metav1.GetOptions{ResourceVersion: rv})
	if rv != "" && storage.IsTooLargeResourceVersion(err) {
		return r.client.NetworkingV1().IPAddresses().Get(ctx, ip.String(), metav1.GetOptions{})
	}
	return a, err
}

// checkIPAddress checks that a, the IPAddress of svc's ip, points at svc and
// is labeled as the allocators label it.
func (r *RepairIPAddress) checkIPAddress(ctx context.Context, svc *corev1.Service, ip net.IP, a *networkingv1.IPAddress) error {
	namespace, name, isService := serviceRef(a)
	switch {
	case isService && namespace == svc.Namespace && name == svc.Name:
		return r.fixLabels(ctx, a, ip)
	case managedByOther(a):
		r.reportDuplicate(ctx, svc, ip)
		return nil
	case isService:
		holder, err := r.services.Services(namespace).Get(name)
		if err == nil && holdsIP(holder, ip) {
			r.reportDuplicate(ctx, svc, ip)
			return nil
		}
		// The Service it names may be being created right now with this
		// address; wait as long as for an orphan before taking it over.
		if wait := r.grace - r.clock.Since(a.CreationTimestamp.Time); wait > 0 {
			r.queue.AddAfter(workItem{kind: serviceItem, key: svc.Namespace + "/" + svc.Name}, wait)
			return nil
		}
		holder, err = r.client.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
		if err == nil && holdsIP(holder, ip) {
			r.reportDuplicate(ctx, svc, ip)
			return nil
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return r.unknownClusterIPError(ctx, svc, ip, err)
		}
	}
	return r.recreate(ctx, svc, ip, a)
}

// recreate replaces a, which does not point at svc, by svc's IPAddress of ip:
// parentRef is immutable. The delete is conditional on a being unchanged.
func (r *RepairIPAddress) recreate(ctx context.Context, svc *corev1.Service, ip net.IP, a *networkingv1.IPAddress) error {
	live, err := r.liveHolder(ctx, svc, ip)
	if err != nil || live == nil {
		return err
	}
	if err := r.deleteUnchanged(ctx, a); err != nil {
		return err
	}
	// A create that fails leaves the address to the missing-IPAddress path.
	if _, err := r.client.NetworkingV1().IPAddresses().Create(ctx, newIPAddress(ip, live), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("recreating IPAddress %s for Service %s/%s: %w", ip, live.Namespace, live.Name, err)
	}
	r.report(ctx, live, errorTypeRepair, reasonNotAllocated, actionAllocation,
		"the ClusterIP [%v]: %s for Service %s/%s has a wrong reference; repairing", ipFamilyOf(ip), ip, live.Namespace, live.Name)
	return nil
}

// fixLabels puts the allocators' labels on a, which points at the right
// Service, in place: deleting and recreating it would let an allocator take
// the address in between. Another manager's IPAddress is left as it is.
func (r *RepairIPAddress) fixLabels(ctx context.Context, a *networkingv1.IPAddress, ip net.IP) error {
	if labelsMatch(a, ip) || managedByOther(a) {
		return nil
	}
	// The index keeps two labels and no annotations: update the object as it is
	// stored, and only if it is still the one checked.
	live, err := r.client.NetworkingV1().IPAddresses().Get(ctx, a.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading IPAddress %s to label it: %w", a.Name, err)
	}
	if live.UID != a.UID {
		r.queue.Add(workItem{kind: ipAddressItem, key: a.Name})
		return nil
	}
	if labelsMatch(live, ip) || managedByOther(live) {
		return nil
	}
	fixed := live.DeepCopy()
	if fixed.Labels == nil {
		fixed.Labels = map[string]string{}
	}
	for k, v := range wantLabels(ip) {
		fixed.Labels[k] = v
	}
	if _, err := r.client.NetworkingV1().IPAddresses().Update(ctx, fixed, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("labeling IPAddress %s: %w", a.Name, err)
	}
	klog.FromContext(ctx).Info("Labeled an IPAddress as the ClusterIP allocators do", "ipAddress", a.Name, "labels", a.Labels)
	return nil
}

// liveHolder reads svc through the API and returns it if it is still the same
// Service and still holds ip, nil otherwise.
func (r *RepairIPAddress) liveHolder(ctx context.Context, svc *corev1.Service, ip net.IP) (*corev1.Service, error) {
	live, err := r.client.CoreV1().Services(svc.Namespace).Get(ctx, svc.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, r.unknownClusterIPError(ctx, svc, ip, err)
	}
	if live.UID != svc.UID || !holdsIP(live, ip) {
		return nil, nil
	}
	return live, nil
}

func (r *RepairIPAddress) reportDuplicate(ctx context.Context, svc *corev1.Service, ip net.IP) {
	r.report(ctx, svc, errorTypeDuplicate, reasonAlreadyAllocated, actionAllocation,
		"Cluster IP [%v]:%s was assigned to multiple services; please recreate service", ipFamilyOf(ip), ip)
}

// unknownClusterIPError reports err, an unexpected failure to check svc's ip,
// and returns it so the Service is retried.
func (r *RepairIPAddress) unknownClusterIPError(ctx context.Context, svc *corev1.Service, ip net.IP, err error) error {
	r.report(ctx, svc, errorTypeUnknown, reasonUnknown, actionAllocation,
		"Unable to allocate ClusterIP [%v]: %s due to an unknown error", ipFamilyOf(ip), ip)
	return fmt.Errorf("checking ClusterIP %s of Service %s/%s: %w", ip, svc.Namespace, svc.Name, err)
}

// report counts a problem, records a Warning event on obj and logs it.
func (r *RepairIPAddress) report(ctx context.Context, obj runtime.Object, errorType, reason, action, note string, args ...any) {
	clusterIPRepairIPErrors.WithLabelValues(errorType).Inc()
	r.recorder.Eventf(obj, nil, corev1.EventTypeWarning, reason, action, note, args...)
	klog.FromContext(ctx).Error(nil, "IPAddress repair", "object", klog.KObj(obj.(metav1.Object)), "reason", reason, "message", fmt.Sprintf(note, args...))
}
