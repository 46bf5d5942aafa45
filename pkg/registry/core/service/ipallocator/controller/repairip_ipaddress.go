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
	"fmt"
	"net"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator/clusterip"
)

// ipProblem is what is wrong with an allocator-managed IPAddress.
type ipProblem int

const (
	ipOK ipProblem = iota
	// ipNotService: its parentRef names no Service.
	ipNotService
	// ipLeaked: the Service it names does not exist.
	ipLeaked
	// ipWrongReference: the Service it names does not hold its address.
	ipWrongReference
)

// serviceGetter reads a Service from the cache or from the API.
type serviceGetter func(ctx context.Context, namespace, name string) (*corev1.Service, error)

// syncIPAddress deletes an allocator-managed IPAddress that no Service uses,
// once it is older than the grace period and has been seen unused for as
// long, and after the API confirms it. Any other IPAddress is left alone.
//
// Upstream deletes on the IPAddress's age alone, so during mass Service
// deletions it races the Service storage's own release (the Service is gone,
// the IPAddress about to be) and reports leaks that are none.
func (r *RepairIPAddress) syncIPAddress(ctx context.Context, name string) error {
	a, err := r.ipAddresses.Get(name)
	if apierrors.IsNotFound(err) || (err == nil && !managedByAllocator(a)) {
		r.orphans.forget(name)
		return nil
	}
	if err != nil {
		return err
	}
	ip := netutils.ParseIPSloppy(a.Name)
	problem, err := r.problemOf(ctx, a, ip, r.cachedService)
	if err != nil || problem == ipOK {
		r.orphans.forget(name)
		return err
	}
	if holder := r.serviceHolding(ip); holder != "" {
		// A Service holds the address: its sync repairs the IPAddress for it.
		r.orphans.forget(name)
		r.queue.Add(workItem{kind: serviceItem, key: holder})
		return nil
	}

	now := r.clock.Now()
	firstSeen := r.orphans.observe(a, now)
	wait := max(r.grace-now.Sub(firstSeen), r.grace-now.Sub(a.CreationTimestamp.Time))
	if wait > 0 {
		klog.FromContext(ctx).V(4).Info("IPAddress has no Service using it; waiting before cleaning it up", "ipAddress", name, "wait", wait)
		r.queue.AddAfter(workItem{kind: ipAddressItem, key: name}, wait)
		return nil
	}

	// Confirm through the API what the caches said.
	live, err := r.client.NetworkingV1().IPAddresses().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		r.orphans.forget(name)
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading IPAddress %s: %w", name, err)
	}
	if live.UID != a.UID || !managedByAllocator(live) {
		// Replaced meanwhile: the replacement gets a grace of its own.
		r.orphans.forget(name)
		r.queue.Add(workItem{kind: ipAddressItem, key: name})
		return nil
	}
	problem, err = r.problemOf(ctx, live, ip, r.liveService)
	if err != nil || problem == ipOK {
		r.orphans.forget(name)
		return err
	}
	r.reportOrphan(ctx, live, problem)
	if err := r.deleteUnchanged(ctx, live); err != nil {
		return err
	}
	r.orphans.forget(name)
	return nil
}

// problemOf says what is wrong with a, reading Services with get. An
// unexpected error reading the Service is reported on a.
func (r *RepairIPAddress) problemOf(ctx context.Context, a *networkingv1.IPAddress, ip net.IP, get serviceGetter) (ipProblem, error) {
	namespace, name, ok := serviceRef(a)
	if !ok {
		return ipNotService, nil
	}
	svc, err := get(ctx, namespace, name)
	if apierrors.IsNotFound(err) {
		return ipLeaked, nil
	}
	if err != nil {
		r.report(ctx, a, errorTypeUnknown, reasonUnknown, actionIPAddressAllocation,
			"Unable to get parent Service for IPAddress %s due to an unknown error", a.Name)
		return ipOK, fmt.Errorf("reading Service %s/%s of IPAddress %s: %w", namespace, name, a.Name, err)
	}
	if ip == nil || !holdsIP(svc, ip) {
		return ipWrongReference, nil
	}
	return ipOK, nil
}

func (r *RepairIPAddress) cachedService(_ context.Context, namespace, name string) (*corev1.Service, error) {
	return r.services.Services(namespace).Get(name)
}

func (r *RepairIPAddress) liveService(ctx context.Context, namespace, name string) (*corev1.Service, error) {
	return r.client.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
}

// serviceHolding is the key of a cached Service that has ip among its
// ClusterIPs, or "".
func (r *RepairIPAddress) serviceHolding(ip net.IP) string {
	if ip == nil {
		return ""
	}
	var candidates []*corev1.Service
	if addr, ok := netip.AddrFromSlice(ip); ok && r.indexed {
		candidates, _ = clusterip.Holders(r.serviceIndexer, addr.Unmap())
	} else if all, err := r.services.List(labels.Everything()); err == nil {
		candidates = all
	}
	for _, svc := range candidates {
		if holdsIP(svc, ip) {
			return svc.Namespace + "/" + svc.Name
		}
	}
	return ""
}

func (r *RepairIPAddress) reportOrphan(ctx context.Context, a *networkingv1.IPAddress, problem ipProblem) {
	ref := a.Spec.ParentRef
	switch problem {
	case ipNotService:
		r.report(ctx, a, errorTypeLeak, reasonIPAddressNotAllocated, actionIPAddressAllocation,
			"IPAddress %s appears to have been modified, not referencing a Service %v: cleaning up", a.Name, ref)
	case ipLeaked:
		r.report(ctx, a, errorTypeLeak, reasonIPAddressNotAllocated, actionIPAddressAllocation,
			"IPAddress: %s for Service %s/%s appears to have leaked: cleaning up", a.Name, ref.Namespace, ref.Name)
	case ipWrongReference:
		r.report(ctx, a, errorTypeLeak, reasonIPAddressWrongReference, actionIPAddressAllocation,
			"IPAddress: %s for Service %s/%s has a wrong reference; cleaning up", a.Name, ref.Namespace, ref.Name)
	}
}

// deleteUnchanged deletes a if it is still the object read, so a concurrent
// change (a new allocation of the address) is never deleted on a stale view.
func (r *RepairIPAddress) deleteUnchanged(ctx context.Context, a *networkingv1.IPAddress) error {
	err := r.client.NetworkingV1().IPAddresses().Delete(ctx, a.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &a.UID, ResourceVersion: &a.ResourceVersion},
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting IPAddress %s: %w", a.Name, err)
	}
	return nil
}
