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
	"math"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	networkingv1informers "k8s.io/client-go/informers/networking/v1"
	networkingv1listers "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"
	"k8s.io/utils/clock"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/metricsutil"
	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator/clusterip"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
)

// reservationTTL is how long an address reserved for a request may wait for
// the Service storage to commit or release it; requests time out long before.
const reservationTTL = 5 * time.Minute

// sweepInterval is how often expired reservations are dropped.
const sweepInterval = time.Minute

var _ upstreamipallocator.Interface = (*CIDRAllocator)(nil)

// CIDRConfig is what one family's CIDRAllocator is built from.
type CIDRConfig struct {
	// FlagCIDR is this family's --service-cluster-ip-range, which CIDR() reports.
	FlagCIDR net.IPNet
	// Writer creates and deletes the IPAddresses.
	Writer IPAddressWriter

	ServiceCIDRs networkingv1informers.ServiceCIDRInformer
	// IPAddresses is this apiserver's compact index of the IPAddresses.
	IPAddresses *ipaddressindex.Index
	// Services tells whether a deleted IPAddress's address is still in use.
	Services cache.SharedIndexInformer

	// Bitmap is the legacy bitmap to dual-write, nil when DisableAllocatorDualWrite is on.
	Bitmap *Range

	// Clock and Rand default to the real ones.
	Clock clock.WithTicker
	Rand  rand.Source
}

// reservation is an address this apiserver handed to a request that has not
// been committed (IPAddress created) or released yet.
type reservation struct {
	at     time.Time
	scope  metricsutil.Scope
	prefix netip.Prefix
	// bitmapSet is true when the dual-write bit is this reservation's to clear.
	bitmapSet bool
	// lost is set when Commit found the IPAddress taken: the address stays
	// used, and Release must neither free it nor delete the object.
	lost bool
}

// CIDRAllocator allocates ClusterIPs of one family as IPAddress objects out
// of every ready ServiceCIDR (KEP-1880). It keeps an index of the
// ServiceCIDRs and the used addresses, fed by the ServiceCIDR informer, the
// apiserver's IPAddress index (package ipaddressindex) and its own writes, so that allocation, release and the counts never list IPAddresses
// or walk a range. AllocateNext and Allocate reserve an address in the index;
// the Service storage then calls Commit, which creates the IPAddress with the
// Service as parent, or Release.
type CIDRAllocator struct {
	family      api.IPFamily
	flagCIDR    net.IPNet
	writer      IPAddressWriter
	cidrs       networkingv1listers.ServiceCIDRLister
	ipAddresses networkingv1listers.IPAddressLister
	services    cache.SharedIndexInformer
	bitmap      *Range
	clock       clock.WithTicker

	handlers []handlerRegistration
	// hasSynced latches once every handler has seen its informer's initial list.
	hasSynced atomic.Bool
	stopCh    chan struct{}
	stopOnce  sync.Once
	wake      chan struct{}

	mu  sync.Mutex
	idx *cidrIndex
	// dirty is set when the ServiceCIDRs changed since the index last read them.
	dirty   bool
	pending map[addrKey]reservation
	// created maps addresses whose IPAddress this allocator created to that
	// object's UID until its event source reports it, so a late delete event of an
	// earlier object of the same name is not taken for the new one's.
	created map[addrKey]createdObject
	// released maps addresses whose IPAddress Release deleted to that object's
	// UID until its event source reports the delete, so a late add event of the
	// deleted object does not mark the address used again.
	released map[addrKey]createdObject
	// deletedJointly maps addresses whose IPAddress a Service delete took
	// along in its transaction (PrepareRelease) to that object's UID, until
	// the Service storage releases the address.
	deletedJointly map[addrKey]createdObject
	// refusedDeletes maps addresses whose IPAddress delete admission refused
	// as a Service delete prepared it (PrepareRelease) to that object and the
	// refusal, for the release that follows to answer with it rather than ask
	// admission a second time, as upstream asks once.
	refusedDeletes map[addrKey]refusedDelete
	// held maps an address whose IPAddress was deleted while a Service still
	// had it to that Service, until the Service lets it go.
	held      map[addrKey]string
	metrics   bool
	recorders map[netip.Prefix]*metricsutil.Recorder
}

type createdObject struct {
	uid types.UID
	at  time.Time
}

type refusedDelete struct {
	createdObject
	err error
}

// refusedDeleteTTL is how long a refused delete stands for the release that
// follows it: the Service storage releases right after its delete, and a
// request times out before.
const refusedDeleteTTL = time.Minute

type handlerRegistration struct {
	source       eventSource
	registration cache.ResourceEventHandlerRegistration
}

// eventSource is an informer or the IPAddress index.
type eventSource interface {
	AddEventHandler(cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error)
	RemoveEventHandler(cache.ResourceEventHandlerRegistration) error
}

// NewCIDRAllocator builds the allocator for the family of c.FlagCIDR and
// registers its informer handlers; it serves once the informers have synced.
func NewCIDRAllocator(c CIDRConfig) (*CIDRAllocator, error) {
	prefix, err := toPrefix(&c.FlagCIDR)
	if err != nil {
		return nil, err
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.Rand == nil {
		c.Rand = rand.NewPCG(rand.Uint64(), rand.Uint64())
	}
	family := api.IPv4Protocol
	if prefix.Addr().Is6() {
		family = api.IPv6Protocol
	}
	a := &CIDRAllocator{
		family:      family,
		flagCIDR:    c.FlagCIDR,
		writer:      c.Writer,
		cidrs:       c.ServiceCIDRs.Lister(),
		ipAddresses: c.IPAddresses.Lister(),
		services:    c.Services,
		bitmap:      c.Bitmap,
		clock:       c.Clock,
		stopCh:      make(chan struct{}),
		wake:        make(chan struct{}, 1),
		idx:         newCIDRIndex(family == api.IPv6Protocol, c.Rand),
		dirty:       true,
		pending:     map[addrKey]reservation{},
		created:     map[addrKey]createdObject{},
		released:    map[addrKey]createdObject{},

		deletedJointly: map[addrKey]createdObject{},
		refusedDeletes: map[addrKey]refusedDelete{},
		held:           map[addrKey]string{},
		recorders:      map[netip.Prefix]*metricsutil.Recorder{},
	}
	if err := clusterip.AddIndexer(c.Services); err != nil {
		klog.Background().V(2).Info("Services have no ClusterIP index; deleted IPAddresses are checked against their parent only", "err", err)
	}
	if err := a.register(c.ServiceCIDRs.Informer(), cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { a.cidrsChanged() },
		UpdateFunc: func(any, any) { a.cidrsChanged() },
		DeleteFunc: func(any) { a.cidrsChanged() },
	}); err != nil {
		return nil, err
	}
	if err := a.register(c.IPAddresses, cache.ResourceEventHandlerFuncs{
		AddFunc:    a.ipAddressAdded,
		UpdateFunc: func(_, obj any) { a.ipAddressAdded(obj) },
		DeleteFunc: a.ipAddressDeleted,
	}); err != nil {
		a.Destroy()
		return nil, err
	}
	if err := a.register(c.Services, cache.ResourceEventHandlerFuncs{
		UpdateFunc: a.serviceChanged,
		DeleteFunc: func(obj any) { a.serviceChanged(obj, nil) },
	}); err != nil {
		a.Destroy()
		return nil, err
	}
	go a.run()
	return a, nil
}

func (a *CIDRAllocator) register(source eventSource, h cache.ResourceEventHandler) error {
	reg, err := source.AddEventHandler(h)
	if err != nil {
		return fmt.Errorf("ClusterIP allocator for %s: %w", a.family, err)
	}
	a.handlers = append(a.handlers, handlerRegistration{source, reg})
	return nil
}

// run re-reads the ServiceCIDRs when they change, so metrics and the index
// follow them without waiting for an allocation, and drops expired reservations.
func (a *CIDRAllocator) run() {
	ticker := a.clock.NewTicker(sweepInterval)
	defer ticker.Stop()
	for {
		select {
		case <-a.stopCh:
			return
		case <-a.wake:
			a.mu.Lock()
			a.refreshLocked()
			a.mu.Unlock()
		case <-ticker.C():
			a.sweep()
		}
	}
}

func (a *CIDRAllocator) synced() bool {
	if a.hasSynced.Load() {
		return true
	}
	for _, h := range a.handlers {
		if !h.registration.HasSynced() {
			return false
		}
	}
	a.hasSynced.Store(true)
	return true
}

// refreshLocked rebuilds the index's prefixes from the ServiceCIDRs if they changed.
func (a *CIDRAllocator) refreshLocked() {
	if !a.dirty {
		return
	}
	a.dirty = false
	cidrs, err := a.cidrs.List(labels.Everything())
	if err != nil {
		a.dirty = true
		return
	}
	var specs []cidrSpec
	for _, sc := range cidrs {
		ready := isServiceCIDRReady(sc) && sc.DeletionTimestamp == nil
		for _, s := range sc.Spec.CIDRs {
			p, err := netip.ParsePrefix(s)
			if err != nil || p.Addr().Is6() != (a.family == api.IPv6Protocol) {
				continue
			}
			p = p.Masked()
			if p.Addr().Is6() && p.Bits() < 64 {
				// Upstream's allocator refuses these too; validation should not let them in.
				klog.Background().Info("Ignoring ServiceCIDR prefix shorter than /64", "serviceCIDR", sc.Name, "cidr", s)
				continue
			}
			specs = append(specs, cidrSpec{prefix: p, ready: ready, order: orderKey{sc.CreationTimestamp.UnixNano(), sc.Name}})
		}
	}
	added, removed := a.idx.setCIDRs(specs)
	if a.metrics {
		for _, p := range removed {
			deleteCIDRMetrics(p.String())
			delete(a.recorders, p)
		}
		for _, p := range added {
			a.recorderLocked(p).SetCounts()
		}
	}
}

// isServiceCIDRReady is upstream's rule: Ready when the condition says so, or when there is none yet.
func isServiceCIDRReady(sc *networkingv1.ServiceCIDR) bool {
	for _, c := range sc.Status.Conditions {
		if c.Type == networkingv1.ServiceCIDRConditionReady {
			return c.Status == "True"
		}
	}
	return true
}

func (a *CIDRAllocator) cidrsChanged() {
	a.mu.Lock()
	a.dirty = true
	a.mu.Unlock()
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// parseFamilyAddr is the address an IPAddress name or a Service's ClusterIP
// (in any form a stored Service may hold) stands for, when it is of the
// allocator's family.
func (a *CIDRAllocator) parseFamilyAddr(s string) (netip.Addr, bool) {
	addr, ok := clusterip.Parse(s)
	return addr, ok && a.ofFamily(addr)
}

// ofFamily tells whether addr is of the allocator's family.
func (a *CIDRAllocator) ofFamily(addr netip.Addr) bool {
	return addr.Is6() == (a.family == api.IPv6Protocol)
}

// ready is nil when the allocator can serve, else upstream's ErrNotReady.
func (a *CIDRAllocator) ready() error {
	if !a.synced() {
		return upstreamipallocator.ErrNotReady
	}
	return nil
}

// AllocateNext reserves a free address, from the legacy bitmap first when
// dual-writing (so bitmap-only apiservers sharing it never hand it out too),
// else from the oldest ready ServiceCIDR with room, upper band first.
func (a *CIDRAllocator) AllocateNext() (net.IP, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	bitmapFull := false
	if a.bitmap != nil {
		ip, err := a.allocateFromBitmap()
		if err == nil {
			return ip, nil
		}
		if !errors.Is(err, ErrFull) {
			return nil, err
		}
		bitmapFull = true
	}
	return a.allocateFromIndex(bitmapFull)
}

// bitmapTries bounds how often a bitmap pick that is already an IPAddress is retried.
const bitmapTries = 16

// allocateFromBitmap takes the bitmap's next address and reserves it in the
// index. A bitmap pick that is already an IPAddress stays set in the bitmap,
// which was stale there, and another is taken. ErrFull means the bitmap has
// nothing (more) to give.
func (a *CIDRAllocator) allocateFromBitmap() (net.IP, error) {
	for range bitmapTries {
		ip, err := a.bitmap.AllocateNext()
		if err != nil {
			return nil, err
		}
		addr, _ := netip.AddrFromSlice(ip)
		addr = addr.Unmap()
		a.mu.Lock()
		a.refreshLocked()
		p := a.idx.readyPrefixFor(addr)
		switch {
		case p == nil:
			a.mu.Unlock()
			// The flag range is not (or no longer) a ready ServiceCIDR; leave it to the index.
			_ = a.bitmap.Release(ip)
			return nil, ErrFull
		case a.idx.state(addr) != 0:
			a.mu.Unlock()
			continue
		}
		a.idx.add(addr, stateReserved)
		a.pending[keyOf(addr)] = reservation{at: a.clock.Now(), scope: metricsutil.Dynamic, prefix: p.prefix, bitmapSet: true}
		a.countLocked(addr)
		a.mu.Unlock()
		return ip, nil
	}
	return nil, ErrFull
}

// allocateFromIndex reserves an address of the oldest open prefix. When the
// dual-write bitmap is full, addresses it could store are all taken by its
// users, so prefixes it covers whole are passed over and an address it could
// store is kept only if the bitmap takes it.
func (a *CIDRAllocator) allocateFromIndex(bitmapFull bool) (net.IP, error) {
	var skip func(*prefixEntry) bool
	if bitmapFull {
		skip = func(p *prefixEntry) bool {
			return p.usable > 0 && a.storable(p.first) && a.storable(p.at(p.usable-1))
		}
	}
	var refused []netip.Addr
	defer func() {
		if len(refused) > 0 {
			a.mu.Lock()
			for _, r := range refused {
				a.idx.remove(r)
			}
			a.mu.Unlock()
		}
	}()
	for range bitmapTries {
		a.mu.Lock()
		a.refreshLocked()
		addr, p, ok := a.idx.next(skip)
		if !ok {
			a.mu.Unlock()
			return nil, ErrFull
		}
		a.pending[keyOf(addr)] = reservation{at: a.clock.Now(), scope: metricsutil.Dynamic, prefix: p.prefix}
		a.mu.Unlock()

		ip := net.IP(addr.AsSlice())
		if a.storable(addr) {
			switch err := a.bitmap.Allocate(ip); {
			case errors.Is(err, ErrAllocated):
				a.mu.Lock()
				delete(a.pending, keyOf(addr))
				a.mu.Unlock()
				refused = append(refused, addr)
				continue
			case err != nil:
				a.dropReservation(addr)
				return nil, fmt.Errorf("dual-write of %s to the legacy bitmap: %w", addr, err)
			}
			a.reserved(addr, true)
			return ip, nil
		}
		a.reserved(addr, false)
		return ip, nil
	}
	return nil, ErrFull
}

// storable reports whether the dual-write bitmap has a bit for addr.
func (a *CIDRAllocator) storable(addr netip.Addr) bool {
	return a.bitmap != nil && a.bitmap.offset(net.IP(addr.AsSlice())) >= 0
}

// Allocate reserves ip for a request that asked for it.
func (a *CIDRAllocator) Allocate(ip net.IP) error {
	if err := a.ready(); err != nil {
		return err
	}
	addr, p, err := a.check(ip)
	if err != nil {
		return err
	}
	a.mu.Lock()
	if a.idx.state(addr) != 0 {
		a.mu.Unlock()
		return ErrAllocated
	}
	a.idx.add(addr, stateReserved)
	a.pending[keyOf(addr)] = reservation{at: a.clock.Now(), scope: metricsutil.Static, prefix: p}
	a.mu.Unlock()

	if a.storable(addr) {
		switch err := a.bitmap.Allocate(ip); {
		case errors.Is(err, ErrAllocated):
			// Free as an IPAddress, set in the bitmap: set by a bitmap-only
			// apiserver for a Service not yet repaired (taken), or stale
			// (upstream #136475: repaired here, not refused).
			if a.serviceHas(addr) {
				a.dropReservation(addr)
				return ErrAllocated
			}
			klog.Background().V(2).Info("Legacy bitmap had a free ClusterIP marked; keeping the bit for the new allocation", "ip", addr)
		case err != nil:
			a.dropReservation(addr)
			return fmt.Errorf("dual-write of %s to the legacy bitmap: %w", addr, err)
		}
	}
	a.reserved(addr, a.storable(addr))
	return nil
}

// reserved records that addr's reservation is complete: its dual-write bit,
// when bitmapSet, is the reservation's to clear, and the gauges count it.
func (a *CIDRAllocator) reserved(addr netip.Addr, bitmapSet bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r, ok := a.pending[keyOf(addr)]; ok && bitmapSet {
		r.bitmapSet = true
		a.pending[keyOf(addr)] = r
	}
	a.countLocked(addr)
}

// check is ip's address and the ready prefix it can be allocated from, or
// upstream's MetaAllocator's error, ErrMismatchedNetwork, for an address no
// ready ServiceCIDR can hand out: outside all of them, or a network or IPv4
// broadcast address. Tools read the Service CIDR out of that text (upstream #141152).
func (a *CIDRAllocator) check(ip net.IP) (netip.Addr, netip.Prefix, error) {
	addr, ok := netip.AddrFromSlice(ip)
	if !ok {
		return netip.Addr{}, netip.Prefix{}, ErrMismatchedNetwork
	}
	addr = addr.Unmap()
	if addr.Is6() != (a.family == api.IPv6Protocol) {
		return netip.Addr{}, netip.Prefix{}, ErrMismatchedNetwork
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refreshLocked()
	if p := a.idx.readyPrefixFor(addr); p != nil {
		return addr, p.prefix, nil
	}
	return netip.Addr{}, netip.Prefix{}, ErrMismatchedNetwork
}

// dropReservation frees a reserved address and its bitmap bit, if it set one.
func (a *CIDRAllocator) dropReservation(addr netip.Addr) {
	a.mu.Lock()
	r, reserved := a.pending[keyOf(addr)]
	delete(a.pending, keyOf(addr))
	if a.idx.state(addr) == stateReserved {
		a.idx.remove(addr)
		a.countLocked(addr)
	}
	a.mu.Unlock()
	if reserved && r.bitmapSet {
		_ = a.bitmap.Release(net.IP(addr.AsSlice()))
	}
}

// Release frees ip: a reservation is dropped, a committed address has its IPAddress deleted.
func (a *CIDRAllocator) Release(ip net.IP) error {
	addr, ok := netip.AddrFromSlice(ip)
	if !ok {
		return nil
	}
	addr = addr.Unmap()
	k := keyOf(addr)
	a.mu.Lock()
	r, reserved := a.pending[k]
	a.mu.Unlock()
	if reserved {
		if r.lost {
			a.mu.Lock()
			delete(a.pending, k)
			a.mu.Unlock()
			return nil
		}
		a.dropReservation(addr)
		return nil
	}

	a.mu.Lock()
	joint, deleted := a.deletedJointly[k]
	delete(a.deletedJointly, k)
	a.mu.Unlock()
	uid := joint.uid
	if !deleted {
		uid = a.releasing(addr)
		err := a.takeRefusedDelete(k, uid)
		if err == nil {
			// upstream's Interface gives Release no context
			err = a.writer.Delete(context.TODO(), addr.String(), metav1.DeleteOptions{})
		}
		if err != nil {
			// Upstream's allocator logs a failed delete (refused by
			// admission, say) in these words and answers nil, which the
			// Service storage's callers take as released; the address stays
			// used while its IPAddress stands.
			klog.Infof("error releasing ip %s : %v", addr, err)
			if !apierrors.IsNotFound(err) {
				return nil
			}
		}
	}
	a.mu.Lock()
	// The delete event of the object is now stale whatever happens next to the
	// address, and so is an add event of it that has not come yet.
	delete(a.created, k)
	if uid != "" {
		a.released[k] = createdObject{uid: uid, at: a.clock.Now()}
	}
	if a.idx.remove(addr) {
		a.countLocked(addr)
	}
	a.mu.Unlock()
	if a.storable(addr) {
		_ = a.bitmap.Release(ip)
	}
	return nil
}

// takeRefusedDelete is the refusal PrepareRelease met, a moment ago, when it
// prepared the delete of the IPAddress uid of k, or nil; it is used once.
func (a *CIDRAllocator) takeRefusedDelete(k addrKey, uid types.UID) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, ok := a.refusedDeletes[k]
	delete(a.refusedDeletes, k)
	if !ok || r.uid != uid || a.clock.Since(r.at) > refusedDeleteTTL {
		return nil
	}
	return r.err
}

// releasing is the UID of the IPAddress of addr that Release is about to
// delete: the one this allocator created, else the one its event source has.
func (a *CIDRAllocator) releasing(addr netip.Addr) types.UID {
	a.mu.Lock()
	c, ok := a.created[keyOf(addr)]
	a.mu.Unlock()
	if ok {
		return c.uid
	}
	if obj, err := a.ipAddresses.Get(addr.String()); err == nil {
		return obj.UID
	}
	return ""
}

// sweep drops reservations no request committed or released in time, and
// forgets created and released objects its event source never reported.
func (a *CIDRAllocator) sweep() {
	now := a.clock.Now()
	var expired []netip.Addr
	a.mu.Lock()
	for k, r := range a.pending {
		if now.Sub(r.at) > reservationTTL {
			expired = append(expired, k.addr(a.family == api.IPv6Protocol))
		}
	}
	for _, objects := range []map[addrKey]createdObject{a.created, a.released, a.deletedJointly} {
		for k, c := range objects {
			if now.Sub(c.at) > reservationTTL {
				delete(objects, k)
			}
		}
	}
	for k, r := range a.refusedDeletes {
		if now.Sub(r.at) > refusedDeleteTTL {
			delete(a.refusedDeletes, k)
		}
	}
	a.mu.Unlock()
	for _, addr := range expired {
		klog.Background().Info("Dropping ClusterIP reservation no request committed", "ip", addr)
		a.dropReservation(addr)
	}
}

// ForEach calls f for every used address.
func (a *CIDRAllocator) ForEach(f func(net.IP)) {
	a.mu.Lock()
	addrs := make([]netip.Addr, 0, len(a.idx.used))
	for k := range a.idx.used {
		addrs = append(addrs, k.addr(a.family == api.IPv6Protocol))
	}
	a.mu.Unlock()
	for _, addr := range addrs {
		f(net.IP(addr.AsSlice()))
	}
}

// CIDR is the flag range of the family, as the bitmap allocator reports it.
func (a *CIDRAllocator) CIDR() net.IPNet { return a.flagCIDR }

// IPFamily is the family the allocator serves.
func (a *CIDRAllocator) IPFamily() api.IPFamily { return a.family }

// Has reports whether ip is used: an IPAddress, a reservation or a held address.
func (a *CIDRAllocator) Has(ip net.IP) bool {
	addr, ok := netip.AddrFromSlice(ip)
	if !ok {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.idx.state(addr.Unmap()) != 0
}

// Used is the number of used addresses of the family, in O(1).
func (a *CIDRAllocator) Used() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.idx.used)
}

// Destroy stops the allocator's goroutine, removes its informer handlers and destroys the bitmap.
func (a *CIDRAllocator) Destroy() {
	a.stopOnce.Do(func() {
		close(a.stopCh)
		for _, h := range a.handlers {
			_ = h.source.RemoveEventHandler(h.registration)
		}
		if a.bitmap != nil {
			a.bitmap.Destroy()
		}
	})
}

// EnableMetrics exports upstream's clusterip_allocator metrics per ServiceCIDR prefix.
func (a *CIDRAllocator) EnableMetrics() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.metrics {
		return
	}
	a.metrics = true
	for p := range a.idx.prefixes {
		a.recorderLocked(p).SetCounts()
	}
}

// recorderLocked is the metrics recorder of prefix p, built on first use.
func (a *CIDRAllocator) recorderLocked(p netip.Prefix) *metricsutil.Recorder {
	if r := a.recorders[p]; r != nil {
		return r
	}
	e := a.idx.prefixes[p]
	if e == nil {
		return nil
	}
	r := newMetricsRecorder(p.String(),
		func() int { return int(min(e.used, math.MaxInt)) },
		func() int { return int(min(e.usage().Free, math.MaxInt)) })
	a.recorders[p] = r
	return r
}

// countLocked refreshes the gauges of every prefix containing addr.
func (a *CIDRAllocator) countLocked(addr netip.Addr) {
	if !a.metrics {
		return
	}
	a.idx.eachContaining(addr, func(p *prefixEntry) {
		a.recorderLocked(p.prefix).SetCounts()
	})
}

// DryRun answers a dry-run request: nothing is reserved or changed.
func (a *CIDRAllocator) DryRun() upstreamipallocator.Interface {
	return dryRunCIDR{a}
}
