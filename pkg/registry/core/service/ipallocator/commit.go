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
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/klog/v2"
	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/metricsutil"
	"github.com/netfork/netfork/pkg/registry/internal/jointwrite"
)

// CollisionError is returned by Commit when the IPAddress of an address this
// apiserver reserved already exists: another apiserver took it first (its
// informer had not told this one yet), or a user made it. Only a dynamic
// allocation may then be retried with another address.
type CollisionError struct {
	IP     string
	Static bool
}

func (e *CollisionError) Error() string {
	return fmt.Sprintf("IPAddress %s already exists", e.IP)
}

// CommitError is returned by Commit when the IPAddress of an address could
// not be created for another reason than a collision: admission refused it,
// etcd failed. Upstream's allocator creates the IPAddress while it
// allocates, so the Service storage answers it as a failed allocation of IP
// with cause Err.
type CommitError struct {
	IP      string
	Service string
	Err     error
}

func (e *CommitError) Error() string {
	return fmt.Sprintf("failed to create IPAddress %s for Service %s: %v", e.IP, e.Service, e.Err)
}

func (e *CommitError) Unwrap() error { return e.Err }

// Commit creates the IPAddress, with svc as parent, of every address of ips
// in the allocator's family. Reserved addresses and addresses whose
// reservation expired alike are created, so a Service is never stored with
// an address that has no IPAddress. On an error, the Service storage reverts
// its transaction, which Releases what it allocated.
func (a *CIDRAllocator) Commit(ctx context.Context, svc *api.Service, ips []string) error {
	for _, ip := range ips {
		addr, ok := a.parseFamilyAddr(ip)
		if !ok {
			continue
		}
		if err := a.commitOne(ctx, svc, addr); err != nil {
			return err
		}
	}
	return nil
}

// commitOne creates addr's IPAddress, or, when the request's Service storage
// can write it in the Service's own transaction (jointwrite), prepares it
// and leaves it there.
func (a *CIDRAllocator) commitOne(ctx context.Context, svc *api.Service, addr netip.Addr) error {
	namespace := svc.Namespace
	if namespace == "" {
		namespace, _ = genericapirequest.NamespaceFrom(ctx)
	}
	obj := &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{
			Name: addr.String(),
			Labels: map[string]string{
				networkingv1.LabelIPAddressFamily: string(a.family),
				networkingv1.LabelManagedBy:       upstreamipallocator.ControllerName,
			},
		},
		Spec: networkingv1.IPAddressSpec{
			ParentRef: &networkingv1.ParentReference{Group: "", Resource: "services", Namespace: namespace, Name: svc.Name},
		},
	}
	if p, ok := a.writer.(IPAddressPreparer); ok {
		slot := jointwrite.From(ctx)
		prepared, write, err := p.Prepare(ctx, slot, obj)
		switch {
		case errors.Is(err, jointwrite.ErrCannotPrepare):
		case err != nil:
			return a.settle(addr, svc.Name, namespace, nil, err)
		default:
			slot.Hold(svc, &jointwrite.Write{Key: write.Key, Data: write.Data, Done: func(o jointwrite.Outcome) error {
				switch o {
				case jointwrite.Written:
					return a.settle(addr, svc.Name, namespace, prepared, nil)
				case jointwrite.AddressTaken:
					return a.settle(addr, svc.Name, namespace, nil, apierrors.NewAlreadyExists(networkingv1.Resource("ipaddresses"), obj.Name))
				default:
					return a.settle(addr, svc.Name, namespace, nil, errNotWritten)
				}
			}})
			return nil
		}
	}
	created, err := a.writer.Create(ctx, obj, metav1.CreateOptions{})
	return a.settle(addr, svc.Name, namespace, created, err)
}

// errNotWritten is the outcome of a prepared IPAddress whose Service's transaction wrote nothing.
var errNotWritten = errors.New("the Service's transaction wrote nothing")

// settle records the outcome of addr's IPAddress create for Service
// namespace/name: created, or the create's err.
func (a *CIDRAllocator) settle(addr netip.Addr, name, namespace string, created *networkingv1.IPAddress, err error) error {
	k := keyOf(addr)
	a.mu.Lock()
	defer a.mu.Unlock()
	r, reserved := a.pending[k]
	if !reserved {
		// Expired (or never reserved here): commit it as a static allocation would.
		r = reservation{at: a.clock.Now()}
		if p := a.idx.readyPrefixFor(addr); p != nil {
			r.prefix = p.prefix
		}
		a.pending[k] = r
		a.idx.add(addr, stateReserved)
	}
	rec := a.recorderForLocked(r.prefix)
	switch {
	case err == nil:
		delete(a.pending, k)
		a.idx.add(addr, stateObject)
		if cached, err := a.ipAddresses.Get(addr.String()); err != nil || cached.UID != created.UID {
			// Until the informer reports this object, a late delete event
			// of an earlier one of the same name is not this one's.
			a.created[k] = createdObject{uid: created.UID, at: a.clock.Now()}
		}
		rec.Succeeded(r.scope, r.at)
		return nil
	case apierrors.IsAlreadyExists(err):
		// The address is someone else's: it stays used, and Release leaves it be.
		r.lost = true
		a.pending[k] = r
		a.idx.add(addr, stateObject)
		rec.Failed(r.scope)
		return &CollisionError{IP: addr.String(), Static: r.scope == metricsutil.Static}
	default:
		rec.Failed(r.scope)
		if r.scope == metricsutil.Dynamic && !errors.Is(err, errNotWritten) {
			// Upstream's allocator counts the failed create of an address it
			// chose twice, once as the create fails (createIPAddress) and once
			// as the allocation gives up (allocateNextService), and logs it
			// (not that of an address the Service asked for) in these words,
			// unstructured.
			rec.Failed(r.scope)
			klog.Infof("can not create IPAddress %s: %v", addr, err)
		}
		return &CommitError{IP: addr.String(), Service: namespace + "/" + name, Err: err}
	}
}

// PrepareRelease prepares, for the delete of svc, the delete of the IPAddress
// of the first of its ClusterIPs in this family that this apiserver's
// informer shows as svc's and whose delete it can prepare, for the Service
// storage of slot to take along in the Service's transaction (which takes
// one). An address it does not prepare is deleted on Release, as before; one
// whose delete the transaction took is only released there.
func (a *CIDRAllocator) PrepareRelease(ctx context.Context, slot *jointwrite.Slot, svc *api.Service) []*jointwrite.Delete {
	p, ok := a.writer.(IPAddressPreparer)
	if !ok {
		return nil
	}
	for _, ip := range svc.Spec.ClusterIPs {
		addr, ok := a.parseFamilyAddr(ip)
		if !ok {
			continue
		}
		k := keyOf(addr)
		a.mu.Lock()
		_, reserved := a.pending[k]
		delete(a.refusedDeletes, k)
		a.mu.Unlock()
		obj, err := a.ipAddresses.Get(addr.String())
		if reserved || err != nil || !ownedBy(obj, svc) {
			continue
		}
		prepared, err := p.PrepareDelete(ctx, slot, obj.Name)
		if err != nil {
			if !errors.Is(err, jointwrite.ErrCannotPrepare) {
				// Admission refused it: the release answers with this.
				a.mu.Lock()
				a.refusedDeletes[k] = refusedDelete{createdObject: createdObject{uid: obj.UID, at: a.clock.Now()}, err: err}
				a.mu.Unlock()
			}
			continue
		}
		uid := obj.UID
		return []*jointwrite.Delete{{Key: prepared.Key, Revision: prepared.Revision, Done: func(o jointwrite.Outcome) {
			if o == jointwrite.Written {
				a.mu.Lock()
				a.deletedJointly[k] = createdObject{uid: uid, at: a.clock.Now()}
				a.mu.Unlock()
			}
		}}}
	}
	return nil
}

// ownedBy tells whether obj's parent is the Service svc.
func ownedBy(obj *networkingv1.IPAddress, svc *api.Service) bool {
	ref := obj.Spec.ParentRef
	return ref != nil && ref.Group == "" && ref.Resource == "services" && ref.Namespace == svc.Namespace && ref.Name == svc.Name
}

// recorderForLocked is the recorder of prefix p when metrics are on, else
// nil, which records nothing.
func (a *CIDRAllocator) recorderForLocked(p netip.Prefix) *metricsutil.Recorder {
	if !a.metrics || !p.IsValid() {
		return nil
	}
	return a.recorderLocked(p)
}

// dryRunCIDR answers dry-run requests without reserving anything: Allocate
// rejects what a real request would be refused for now, AllocateNext names an
// address a real request could get.
type dryRunCIDR struct {
	real *CIDRAllocator
}

func (d dryRunCIDR) Allocate(ip net.IP) error {
	if err := d.real.ready(); err != nil {
		return err
	}
	addr, _, err := d.real.check(ip)
	if err != nil {
		return err
	}
	if d.real.Has(net.IP(addr.AsSlice())) {
		return ErrAllocated
	}
	return nil
}

func (d dryRunCIDR) AllocateNext() (net.IP, error) {
	if err := d.real.ready(); err != nil {
		return nil, err
	}
	a := d.real
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refreshLocked()
	addr, _, ok := a.idx.next(nil)
	if !ok {
		return nil, ErrFull
	}
	a.idx.remove(addr)
	return net.IP(addr.AsSlice()), nil
}

func (d dryRunCIDR) Release(net.IP) error                  { return nil }
func (d dryRunCIDR) ForEach(fn func(net.IP))               { d.real.ForEach(fn) }
func (d dryRunCIDR) CIDR() net.IPNet                       { return d.real.CIDR() }
func (d dryRunCIDR) IPFamily() api.IPFamily                { return d.real.IPFamily() }
func (d dryRunCIDR) Has(ip net.IP) bool                    { return d.real.Has(ip) }
func (d dryRunCIDR) DryRun() upstreamipallocator.Interface { return d }
func (d dryRunCIDR) Destroy()                              {}
func (d dryRunCIDR) EnableMetrics()                        {}
