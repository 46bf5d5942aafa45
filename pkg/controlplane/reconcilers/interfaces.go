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

	corev1 "k8s.io/api/core/v1"
	upstreamreconcilers "k8s.io/kubernetes/pkg/controlplane/reconcilers"
)

const (
	// LegacyLeasesPrefix is upstream's etcd prefix for apiserver leases, one key
	// per primary IP; netfork keeps writing it so upstream apiservers see netfork's.
	LegacyLeasesPrefix = "/masterleases/"

	// AddressLeasesPrefix is netfork's etcd prefix for address leases, one key per
	// primary IP (AddressLeasesPrefix + "<primary IP>"), below --etcd-prefix like
	// upstream's. It holds no dot, so no API group's resources can live under it.
	AddressLeasesPrefix = "/netfork-apiserverleases/"

	// ServiceName is the Service whose endpoints the reconciler writes.
	ServiceName = "kubernetes"
)

// AddressLease is what one apiserver publishes under AddressLeasesPrefix. It is
// stored as a core/v1 Endpoints named after the primary address, with the
// addresses in subsets[0].addresses while the apiserver serves and in
// subsets[0].notReadyAddresses once it is terminating, primary family first.
type AddressLease struct {
	// Addresses are the advertised addresses, primary first; the primary is the
	// IP of the apiserver's upstream lease.
	Addresses []string
	// Terminating is set from the start of a graceful shutdown until the lease is removed.
	Terminating bool
}

// Primary is the address the upstream lease of the same apiserver is keyed by.
func (l AddressLease) Primary() string {
	if len(l.Addresses) == 0 {
		return ""
	}
	return l.Addresses[0]
}

// AddressLeases stores the address leases of every apiserver.
type AddressLeases interface {
	// List returns the unexpired address leases by primary address.
	List(ctx context.Context) (map[string]AddressLease, error)
	// Update writes lease and restarts its time to live.
	Update(ctx context.Context, lease AddressLease) error
	// Remove deletes the lease of primary; a missing one is not an error.
	Remove(ctx context.Context, primary string) error
	// Destroy releases the storage; it may be called more than once.
	Destroy()
}

// Reconciler is upstream's EndpointReconciler plus what netfork's
// kubernetes-Service controller needs: the decision behind each write and the
// terminating hand-off.
type Reconciler interface {
	upstreamreconcilers.EndpointReconciler

	// Reconcile refreshes this apiserver's leases, decides the shape of the
	// kubernetes Service and writes its EndpointSlices and Endpoints.
	Reconcile(ctx context.Context, ports []corev1.EndpointPort) (Decision, error)
	// MarkTerminating publishes this apiserver as terminating (ready=false,
	// serving=true, terminating=true) and keeps its leases alive; call it again
	// to refresh them while the apiserver still serves.
	MarkTerminating(ctx context.Context, ports []corev1.EndpointPort) (Decision, error)
	// Remove deletes this apiserver's leases and its endpoints, and returns the
	// decision the apiservers left behind call for (no members when none is live).
	Remove(ctx context.Context, ports []corev1.EndpointPort) (Decision, error)
}
