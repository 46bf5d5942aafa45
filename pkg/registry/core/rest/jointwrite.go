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

package rest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/util/dryrun"
	"k8s.io/klog/v2"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/networking"
	servicestore "k8s.io/kubernetes/pkg/registry/core/service/storage"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
	"github.com/netfork/netfork/pkg/registry/internal/jointwrite"
)

// serviceREST is upstream's Service storage whose creates store the Service
// and the IPAddress of one of its ClusterIPs in one etcd transaction (see
// package jointwrite), and begin again when that transaction finds a
// dynamically chosen address taken by another apiserver.
type serviceREST struct {
	*servicestore.REST
	servers []string
	// prepareDeletes prepares the IPAddress deletes a Service delete takes along.
	prepareDeletes jointwrite.DeletePreparer
}

// Delete is the Service storage's, taking one of the Service's IPAddresses
// along in the Service's delete transaction.
func (r *serviceREST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	if r.prepareDeletes != nil && !dryrun.IsDryRun(options.DryRun) {
		ctx, _ = jointwrite.WithDeletes(ctx, r.servers, r.prepareDeletes)
	}
	return r.REST.Delete(ctx, name, deleteValidation, options)
}

// Create is the Service storage's, with a jointwrite.Slot for its IPAddress.
func (r *serviceREST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	svc, ok := obj.(*api.Service)
	if !ok || dryrun.IsDryRun(options.DryRun) {
		return r.REST.Create(ctx, obj, createValidation, options)
	}
	ctx, slot := jointwrite.WithSlot(ctx, r.servers)
	original := svc.DeepCopy()
	var lost []string
	for attempt := 1; ; attempt++ {
		out, err := r.REST.Create(ctx, svc, createValidation, options)
		var collision *ipallocator.CollisionError
		if !errors.As(err, &collision) {
			return out, err
		}
		if err := collisionOutcome(svc.Name, requestedClusterIPs(original, svc), err, &lost, attempt); err != nil {
			return nil, err
		}
		slot.Reset()
		svc = original.DeepCopy()
	}
}

// jointStorage builds the Service storage that writes creates jointly.
type jointStorage struct {
	logger klog.Logger
	// ipAddressServers are the etcd servers the IPAddresses are stored on.
	ipAddressServers []string
	// servers are the etcd servers of the jointwrite.ServiceStorage built, if one was.
	servers []string
}

// newJointStorage is a jointStorage for the IPAddresses that factory stores.
func newJointStorage(factory serverstorage.StorageFactory) (*jointStorage, error) {
	c, err := factory.NewConfig(networking.Resource("ipaddresses"), &networking.IPAddress{})
	if err != nil {
		return nil, fmt.Errorf("building storage config for ipaddresses: %w", err)
	}
	return &jointStorage{logger: klog.Background(), ipAddressServers: c.Transport.ServerList}, nil
}

// separateWritesLog is the line logged, once as the Service storage is built,
// when each ClusterIP's IPAddress keeps an etcd request of its own.
const separateWritesLog = "Writing each ClusterIP's IPAddress in an etcd request of its own"

// decorate is getter, whose Service storage is a jointwrite.ServiceStorage
// with an etcd client of its own. Where it cannot be (Services and
// IPAddresses on different etcd servers, etcd behind the egress selector),
// the storage is left as it is, each IPAddress keeps its own etcd request,
// and the log says why.
func (j *jointStorage) decorate(getter generic.RESTOptionsGetter) generic.RESTOptionsGetter {
	return jointwrite.Decorating{RESTOptionsGetter: getter, Resource: api.Resource("services"),
		Wrap: func(b jointwrite.Built) (storage.Interface, func(), error) {
			if services := jointwrite.Servers(b.Options); !slices.Equal(services, j.ipAddressServers) {
				j.logger.Info(separateWritesLog, "reason", "--etcd-servers-overrides stores Services and IPAddresses on different etcd servers",
					"servicesServers", services, "ipAddressesServers", j.ipAddressServers)
				return b.Storage, nil, nil
			}
			client, err := jointwrite.NewClient(b.Options)
			if errors.Is(err, jointwrite.ErrEgress) {
				j.logger.Info(separateWritesLog, "reason", err)
				return b.Storage, nil, nil
			}
			if err != nil {
				return nil, nil, err
			}
			joint, err := jointwrite.NewServiceStorage(b, client)
			if err != nil {
				_ = client.Close()
				return nil, nil, err
			}
			j.servers = joint.Servers()
			var once sync.Once
			return joint, func() { once.Do(func() { _ = client.Close() }) }, nil
		}}
}

// rest is services, whose creates and deletes carry a slot for their
// IPAddresses when its storage writes them jointly; prepareDeletes prepares
// the IPAddress deletes.
func (j *jointStorage) rest(services *servicestore.REST, prepareDeletes jointwrite.DeletePreparer) rest.Storage {
	if j.servers == nil {
		return services
	}
	return &serviceREST{REST: services, servers: j.servers, prepareDeletes: prepareDeletes}
}
