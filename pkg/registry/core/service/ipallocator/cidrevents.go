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

package ipallocator

import (
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator/clusterip"
)

// ipAddressAdded marks the address of a new or updated IPAddress as used.
func (a *CIDRAllocator) ipAddressAdded(obj any) {
	ipa, addr, ok := a.ipAddressOf(obj)
	if !ok {
		return
	}
	k := keyOf(addr)
	a.mu.Lock()
	defer a.mu.Unlock()
	if r, ok := a.released[k]; ok {
		if r.uid == ipa.UID {
			return // a late add event of an object Release has deleted
		}
		delete(a.released, k)
	}
	if c, ok := a.created[k]; ok && c.uid == ipa.UID {
		delete(a.created, k)
	}
	delete(a.held, k)
	if a.idx.add(addr, stateObject) {
		a.countLocked(addr)
	}
}

// ipAddressOf is obj as an IPAddress and its address, when it is one of the allocator's family.
func (a *CIDRAllocator) ipAddressOf(obj any) (*networkingv1.IPAddress, netip.Addr, bool) {
	ipa, ok := obj.(*networkingv1.IPAddress)
	if !ok {
		return nil, netip.Addr{}, false
	}
	addr, ok := a.parseFamilyAddr(ipa.Name)
	return ipa, addr, ok
}

// ipAddressDeleted frees the address of a deleted IPAddress, unless the event
// is older than what this allocator did with the address since, or a Service
// still has the address (KEP-1880: kept until its consumer is gone, so a
// force-deleted IPAddress cannot hand the address out twice).
func (a *CIDRAllocator) ipAddressDeleted(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	ipa, addr, ok := a.ipAddressOf(obj)
	if !ok {
		return
	}
	k := keyOf(addr)
	user := a.serviceUsing(addr, ipa.Spec.ParentRef)

	a.mu.Lock()
	defer a.mu.Unlock()
	if r, ok := a.released[k]; ok && r.uid == ipa.UID {
		delete(a.released, k)
	}
	if c, ok := a.created[k]; ok && c.uid != ipa.UID {
		return // a late event for an object this allocator has since replaced
	}
	delete(a.created, k)
	if _, ok := a.pending[k]; ok {
		return // reserved again here since
	}
	if user != "" {
		if a.idx.state(addr) != 0 {
			a.idx.used[k] = stateHeld
			a.held[k] = user
		}
		return
	}
	if a.idx.remove(addr) {
		a.countLocked(addr)
	}
}

// serviceChanged frees held addresses a Service no longer has.
func (a *CIDRAllocator) serviceChanged(oldObj, newObj any) {
	a.mu.Lock()
	noneHeld := len(a.held) == 0
	a.mu.Unlock()
	if noneHeld {
		return
	}
	if tomb, ok := oldObj.(cache.DeletedFinalStateUnknown); ok {
		oldObj = tomb.Obj
	}
	old, ok := oldObj.(*corev1.Service)
	if !ok {
		return
	}
	var keep []netip.Addr
	if svc, ok := newObj.(*corev1.Service); ok {
		keep = clusterip.Of(svc)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, addr := range clusterip.Of(old) {
		if !a.ofFamily(addr) || slices.Contains(keep, addr) {
			continue
		}
		k := keyOf(addr)
		if a.held[k] == "" {
			continue
		}
		delete(a.held, k)
		if a.idx.state(addr) == stateHeld && a.idx.remove(addr) {
			a.countLocked(addr)
		}
	}
}

// serviceUsing is the namespace/name of a Service that has addr as a
// ClusterIP, "" if none: through the ClusterIP index when there is one, else
// the IPAddress's parent only.
func (a *CIDRAllocator) serviceUsing(addr netip.Addr, parent *networkingv1.ParentReference) string {
	indexer := a.services.GetIndexer()
	if _, ok := indexer.GetIndexers()[clusterip.Index]; ok {
		if holders, err := clusterip.Holders(indexer, addr); err == nil && len(holders) > 0 {
			return holders[0].Namespace + "/" + holders[0].Name
		}
		return ""
	}
	if parent == nil || parent.Resource != "services" {
		return ""
	}
	key := parent.Namespace + "/" + parent.Name
	obj, exists, err := indexer.GetByKey(key)
	if err != nil || !exists {
		return ""
	}
	if svc, ok := obj.(*corev1.Service); ok && clusterip.Holds(svc, addr) {
		return key
	}
	return ""
}

// serviceHas reports whether a Service has addr as a ClusterIP.
func (a *CIDRAllocator) serviceHas(addr netip.Addr) bool {
	return a.serviceUsing(addr, nil) != ""
}
