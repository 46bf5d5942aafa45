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

package reconcilers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/storage"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	discoveryv1client "k8s.io/client-go/kubernetes/typed/discovery/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/apis/core/validation"
	upstreamreconcilers "k8s.io/kubernetes/pkg/controlplane/reconcilers"
	netutils "k8s.io/utils/net"
)

// ErrStopped is what Reconcile and MarkTerminating return after StopReconciling.
var ErrStopped = errors.New("the endpoint reconciler was stopped")

// syncAttempts bounds how often MarkTerminating and Remove read again after a peer's write
// got in between: each is the hand-off's one chance when the apiserver has no
// --shutdown-delay-duration, and the next periodic reconcile never comes.
const syncAttempts = 3

// Config is what the lease reconciler needs to know of its apiserver.
type Config struct {
	// AdvertiseAddresses are --advertise-address, primary first; one or one per family.
	AdvertiseAddresses []net.IP
	// ServiceFamilies are the families of --service-cluster-ip-range, primary first.
	ServiceFamilies []corev1.IPFamily
	// Endpoints and EndpointSlices write the kubernetes Service's endpoints, through the loopback client.
	Endpoints      corev1client.EndpointsGetter
	EndpointSlices discoveryv1client.EndpointSlicesGetter
	// LegacyLeases are upstream's leases (upstreamreconcilers.NewLeases at LegacyLeasesPrefix).
	LegacyLeases upstreamreconcilers.Leases
	// AddressLeases are netfork's (NewAddressLeases at AddressLeasesPrefix), with a
	// longer time to live than LegacyLeases' (see Decide).
	AddressLeases AddressLeases
}

// LeaseReconciler is netfork's lease endpoint reconciler (see the package doc).
type LeaseReconciler struct {
	addresses []string
	// secondary is the family of the secondary service range, "" when there is none.
	secondary corev1.IPFamily
	legacy    upstreamreconcilers.Leases
	leases    AddressLeases
	writer    writer

	// lock serializes reconciles, so Remove never races a periodic Reconcile.
	lock        sync.Mutex
	stopped     atomic.Bool
	terminating atomic.Bool
}

var _ Reconciler = (*LeaseReconciler)(nil)

// NewLeaseReconciler checks c and returns the reconciler.
func NewLeaseReconciler(c Config) (*LeaseReconciler, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	r := &LeaseReconciler{legacy: c.LegacyLeases, leases: c.AddressLeases}
	for _, ip := range c.AdvertiseAddresses {
		r.addresses = append(r.addresses, ip.String())
	}
	other := corev1.IPv6Protocol
	if c.ServiceFamilies[0] == corev1.IPv6Protocol {
		other = corev1.IPv4Protocol
	}
	if len(c.ServiceFamilies) == 2 {
		r.secondary = other
	}
	r.writer = writer{
		endpoints:     c.Endpoints,
		slices:        c.EndpointSlices,
		service:       ServiceName,
		secondaryName: SecondarySliceName(ServiceName, other),
	}
	return r, nil
}

func (c Config) validate() error {
	switch {
	case len(c.AdvertiseAddresses) == 0 || len(c.AdvertiseAddresses) > 2:
		return fmt.Errorf("want one advertise address or one per family, got %v", c.AdvertiseAddresses)
	case len(c.AdvertiseAddresses) == 2 && netutils.IsIPv6(c.AdvertiseAddresses[0]) == netutils.IsIPv6(c.AdvertiseAddresses[1]):
		return fmt.Errorf("advertise addresses %v are of one family", c.AdvertiseAddresses)
	case len(c.ServiceFamilies) == 0 || len(c.ServiceFamilies) > 2:
		return fmt.Errorf("want one service IP family or two, got %v", c.ServiceFamilies)
	case len(c.AdvertiseAddresses) == 2 && len(c.ServiceFamilies) != 2:
		return fmt.Errorf("dual-stack advertise addresses %v need dual-stack service ranges, got %v", c.AdvertiseAddresses, c.ServiceFamilies)
	case c.Endpoints == nil || c.EndpointSlices == nil || c.LegacyLeases == nil || c.AddressLeases == nil:
		return errors.New("clients and leases are required")
	}
	return nil
}

// ValidateIP is upstream's check: an Endpoints address may not be loopback,
// link-local or unspecified. The controller asks it for every advertise address.
func (r *LeaseReconciler) ValidateIP(ip net.IP) error {
	return validation.ValidateEndpointIP(ip.String(), nil).ToAggregate()
}

// Reconcile refreshes this apiserver's address lease, then its upstream lease,
// and writes the endpoints the leases call for; a conflict waits for the next one.
func (r *LeaseReconciler) Reconcile(ctx context.Context, ports []corev1.EndpointPort) (Decision, error) {
	return r.refreshAndSync(ctx, ports, 1)
}

// MarkTerminating sets this apiserver's address lease terminating, then writes the
// endpoints the leases call for, reading again after a peer's write got in between.
func (r *LeaseReconciler) MarkTerminating(ctx context.Context, ports []corev1.EndpointPort) (Decision, error) {
	if !r.terminating.Swap(true) {
		klog.FromContext(ctx).Info("Publishing this apiserver as terminating in the kubernetes EndpointSlices", "addresses", r.addresses)
	}
	return r.refreshAndSync(ctx, ports, syncAttempts)
}

// refreshAndSync refreshes the leases, then syncs up to attempts times (see syncAgain).
func (r *LeaseReconciler) refreshAndSync(ctx context.Context, ports []corev1.EndpointPort, attempts int) (Decision, error) {
	if r.stopped.Load() {
		return Decision{}, ErrStopped
	}
	r.lock.Lock()
	defer r.lock.Unlock()
	if err := r.refresh(ctx); err != nil {
		return Decision{}, err
	}
	return r.syncAgain(ctx, ports, false, attempts)
}

// refresh writes the address lease first, so no peer ever sees the upstream
// lease of a netfork apiserver without its address lease.
func (r *LeaseReconciler) refresh(ctx context.Context) error {
	lease := AddressLease{Addresses: r.addresses, Terminating: r.terminating.Load()}
	if err := r.leases.Update(ctx, lease); err != nil {
		return err
	}
	if err := r.legacy.UpdateLease(r.addresses[0]); err != nil {
		return fmt.Errorf("refreshing lease %s%s: %w", LegacyLeasesPrefix, r.addresses[0], err)
	}
	return nil
}

// Remove deletes the upstream lease, then the address lease, and writes the
// endpoints without this apiserver; it returns the decision for the apiservers
// left. A peer's write in between makes it read and write again (syncAgain),
// rather than leave the peer's view in place.
func (r *LeaseReconciler) Remove(ctx context.Context, ports []corev1.EndpointPort) (Decision, error) {
	r.lock.Lock()
	defer r.lock.Unlock()
	legacyErr := r.legacy.RemoveLease(r.addresses[0])
	if legacyErr != nil && !storage.IsNotFound(legacyErr) {
		return Decision{}, fmt.Errorf("removing lease %s%s: %w", LegacyLeasesPrefix, r.addresses[0], legacyErr)
	}
	if err := r.leases.Remove(ctx, r.addresses[0]); err != nil {
		return Decision{}, err
	}
	if storage.IsNotFound(legacyErr) && !r.stopped.Load() {
		// nothing was published: a clean start, as upstream's reconciler sees it
		return Decision{}, nil
	}
	return r.syncAgain(ctx, ports, r.stopped.Load(), syncAttempts)
}

// syncAgain runs sync until it succeeds, fails for another reason than a peer's write
// between its read and its write, or has tried attempts times.
func (r *LeaseReconciler) syncAgain(ctx context.Context, ports []corev1.EndpointPort, allowEmpty bool, attempts int) (Decision, error) {
	var (
		d   Decision
		err error
	)
	for range attempts {
		if d, err = r.sync(ctx, ports, allowEmpty); err == nil || !retryable(err) {
			return d, err
		}
	}
	return d, err
}

// sync reads the objects, then the leases, decides and writes.
func (r *LeaseReconciler) sync(ctx context.Context, ports []corev1.EndpointPort, allowEmpty bool) (Decision, error) {
	cur, err := r.writer.read(ctx)
	if err != nil {
		return Decision{}, err
	}
	legacy, err := r.legacy.ListLeases()
	if err != nil {
		return Decision{}, fmt.Errorf("listing leases at %s: %w", LegacyLeasesPrefix, err)
	}
	leases, err := r.leases.List(ctx)
	if err != nil {
		return Decision{}, err
	}
	d := Decide(legacy, leases, r.secondary)
	if len(d.Members) == 0 && !allowEmpty {
		// Our own lease was just refreshed: none listed means storage is wrong, not the cluster.
		return d, errors.New("no API server IP addresses were listed in storage, refusing to erase all endpoints for the kubernetes Service")
	}
	ports = keptPorts(cur.endpoints, ports)
	service := r.writer.service
	err = r.writer.write(ctx, cur,
		desiredEndpoints(service, d, ports),
		desiredPrimarySlice(service, d, ports),
		desiredSecondarySlice(service, d, r.secondary, ports))
	return d, err
}

// keptPorts are the ports of the Endpoints when they have upstream's one
// subset: like upstream's reconciler, netfork writes its own ports only into
// new or malformed Endpoints, so apiservers that disagree on the port (which
// they must not) do not rewrite each other's at every reconcile.
func keptPorts(cur *corev1.Endpoints, ours []corev1.EndpointPort) []corev1.EndpointPort {
	if cur != nil && len(cur.Subsets) == 1 && len(cur.Subsets[0].Ports) > 0 {
		return cur.Subsets[0].Ports
	}
	return ours
}

// ReconcileEndpoints is upstream's entry point; it ignores serviceName and ip,
// which are always the kubernetes Service and the primary advertise address.
func (r *LeaseReconciler) ReconcileEndpoints(_ string, _ net.IP, ports []corev1.EndpointPort, _ bool) error {
	_, err := r.Reconcile(context.TODO(), ports)
	if errors.Is(err, ErrStopped) {
		return nil
	}
	return err
}

// RemoveEndpoints is upstream's entry point for Remove.
func (r *LeaseReconciler) RemoveEndpoints(_ string, _ net.IP, ports []corev1.EndpointPort) error {
	_, err := r.Remove(context.TODO(), ports)
	return err
}

// StopReconciling turns later Reconcile calls into ErrStopped and lets Remove
// erase the last endpoint.
func (r *LeaseReconciler) StopReconciling() { r.stopped.Store(true) }

// Destroy releases both lease stores.
func (r *LeaseReconciler) Destroy() {
	r.legacy.Destroy()
	r.leases.Destroy()
}
