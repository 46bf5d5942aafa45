package ipallocator

import (
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/tools/cache"
)

// ServiceClusterIPIndex indexes the Service informer by every ClusterIP.
const ServiceClusterIPIndex = "netfork.io/clusterip"

// addServiceIndexer adds ServiceClusterIPIndex unless the informer has it; it
// fails once the informer has started.
func addServiceIndexer(informer cache.SharedIndexInformer) error {
	if _, ok := informer.GetIndexer().GetIndexers()[ServiceClusterIPIndex]; ok {
		return nil
	}
	return informer.AddIndexers(cache.Indexers{ServiceClusterIPIndex: func(obj any) ([]string, error) {
		svc, ok := obj.(*corev1.Service)
		if !ok {
			return nil, nil
		}
		var ips []string
		for _, ip := range svc.Spec.ClusterIPs {
			// Keyed canonically, as IPAddress names are: a legacy Service may hold another form.
			if addr, err := netip.ParseAddr(ip); err == nil {
				ips = append(ips, addr.String())
			}
		}
		return ips, nil
	}})
}

// ipAddressAdded marks the address of a new or updated IPAddress as used.
func (a *CIDRAllocator) ipAddressAdded(obj any) {
	ipa, addr, ok := a.ipAddressOf(obj)
	if !ok {
		return
	}
	k := keyOf(addr)
	a.mu.Lock()
	defer a.mu.Unlock()
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
		for _, ip := range svc.Spec.ClusterIPs {
			if addr, ok := a.parseFamilyAddr(ip); ok {
				keep = append(keep, addr)
			}
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, ip := range old.Spec.ClusterIPs {
		addr, ok := a.parseFamilyAddr(ip)
		if !ok || slices.Contains(keep, addr) {
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
	if _, ok := indexer.GetIndexers()[ServiceClusterIPIndex]; ok {
		objs, err := indexer.ByIndex(ServiceClusterIPIndex, addr.String())
		if err == nil && len(objs) > 0 {
			if svc, ok := objs[0].(*corev1.Service); ok {
				return svc.Namespace + "/" + svc.Name
			}
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
	if svc, ok := obj.(*corev1.Service); ok && slices.ContainsFunc(svc.Spec.ClusterIPs, func(ip string) bool {
		other, err := netip.ParseAddr(ip)
		return err == nil && other == addr
	}) {
		return key
	}
	return ""
}

// serviceHas reports whether a Service has addr as a ClusterIP.
func (a *CIDRAllocator) serviceHas(addr netip.Addr) bool {
	return a.serviceUsing(addr, nil) != ""
}
