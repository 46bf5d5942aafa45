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
	"fmt"
	"path"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	storagefactory "k8s.io/apiserver/pkg/storage/storagebackend/factory"
)

// storageAddressLeases keeps address leases in etcd next to upstream's leases,
// with the storage config (and so the encoding) upstream uses for those.
type storageAddressLeases struct {
	storage storage.Interface
	destroy func()
	prefix  string
	ttl     uint64
}

var _ AddressLeases = (*storageAddressLeases)(nil)

// NewAddressLeases stores address leases under prefix with a time to live of
// ttl, which is rounded down to whole seconds as etcd counts them.
func NewAddressLeases(config *storagebackend.ConfigForResource, prefix string, ttl time.Duration) (AddressLeases, error) {
	if ttl < time.Second {
		return nil, fmt.Errorf("address lease time to live %s is under the 1s etcd can keep", ttl)
	}
	s, destroy, err := storagefactory.Create(*config, nil, nil, prefix)
	if err != nil {
		return nil, fmt.Errorf("creating storage for address leases at %s: %w", prefix, err)
	}
	var once sync.Once
	return &storageAddressLeases{
		storage: s,
		destroy: func() { once.Do(destroy) },
		prefix:  prefix,
		ttl:     uint64(ttl / time.Second),
	}, nil
}

func (s *storageAddressLeases) List(ctx context.Context) (map[string]AddressLease, error) {
	list := &corev1.EndpointsList{}
	opts := storage.ListOptions{
		ResourceVersion:      "0",
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		Predicate:            storage.Everything,
		Recursive:            true,
	}
	if err := s.storage.GetList(ctx, s.prefix, opts, list); err != nil {
		return nil, fmt.Errorf("listing address leases at %s: %w", s.prefix, err)
	}
	leases := make(map[string]AddressLease, len(list.Items))
	for i := range list.Items {
		if lease, ok := leaseFromEndpoints(&list.Items[i]); ok {
			leases[lease.Primary()] = lease
		}
	}
	return leases, nil
}

func (s *storageAddressLeases) Update(ctx context.Context, lease AddressLease) error {
	primary := lease.Primary()
	if primary == "" {
		return fmt.Errorf("address lease without an address")
	}
	key := path.Join(s.prefix, primary)
	err := s.storage.GuaranteedUpdate(ctx, key, &corev1.Endpoints{}, true, nil,
		func(input runtime.Object, _ storage.ResponseMeta) (runtime.Object, *uint64, error) {
			stored := input.(*corev1.Endpoints)
			stored.Name = primary
			stored.Subsets = []corev1.EndpointSubset{subsetOf(lease)}
			// An unchanged object is not written, and its time to live not
			// restarted, so every refresh changes the generation.
			stored.Generation++
			ttl := s.ttl
			return stored, &ttl, nil
		}, nil)
	if err != nil {
		return fmt.Errorf("writing address lease %s: %w", key, err)
	}
	return nil
}

func (s *storageAddressLeases) Remove(ctx context.Context, primary string) error {
	key := path.Join(s.prefix, primary)
	err := s.storage.Delete(ctx, key, &corev1.Endpoints{}, nil, rest.ValidateAllObjectFunc, nil, storage.DeleteOptions{})
	if err != nil && !storage.IsNotFound(err) {
		return fmt.Errorf("removing address lease %s: %w", key, err)
	}
	return nil
}

func (s *storageAddressLeases) Destroy() { s.destroy() }

// subsetOf is the stored form of lease (see AddressLease).
func subsetOf(lease AddressLease) corev1.EndpointSubset {
	addrs := make([]corev1.EndpointAddress, 0, len(lease.Addresses))
	for _, ip := range lease.Addresses {
		addrs = append(addrs, corev1.EndpointAddress{IP: ip})
	}
	if lease.Terminating {
		return corev1.EndpointSubset{NotReadyAddresses: addrs}
	}
	return corev1.EndpointSubset{Addresses: addrs}
}

// leaseFromEndpoints reads the stored form back; anything else is skipped.
func leaseFromEndpoints(e *corev1.Endpoints) (AddressLease, bool) {
	if len(e.Subsets) != 1 {
		return AddressLease{}, false
	}
	addrs, terminating := e.Subsets[0].Addresses, false
	if len(addrs) == 0 {
		addrs, terminating = e.Subsets[0].NotReadyAddresses, true
	}
	if len(addrs) == 0 || len(addrs) > 2 {
		return AddressLease{}, false
	}
	lease := AddressLease{Terminating: terminating}
	for _, a := range addrs {
		lease.Addresses = append(lease.Addresses, a.IP)
	}
	return lease, true
}
