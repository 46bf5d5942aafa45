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

package jointwrite

import (
	"context"
	"fmt"
	"path"
	"reflect"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/etcd3"
	"k8s.io/apiserver/pkg/storage/etcd3/metrics"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/apiserver/pkg/storage/value"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	"k8s.io/client-go/tools/cache"
)

// encoder encodes objects of one resource as its etcd storage does.
type encoder struct {
	codec          runtime.Codec
	transformer    value.Transformer
	pathPrefix     string
	resourcePrefix string
	versioner      storage.Versioner
	resource       schema.GroupResource
}

// newEncoder is the encoder of the storage opts configure.
func newEncoder(opts generic.RESTOptions) (*encoder, error) {
	c := opts.StorageConfig
	if c == nil || c.Codec == nil {
		return nil, fmt.Errorf("storage of %s has no codec", opts.ResourcePrefix)
	}
	transformer := c.Transformer
	if transformer == nil {
		transformer = identity.NewEncryptCheckTransformer()
	}
	// upstream-shim begin: k8s.io/apiserver/pkg/storage/etcd3/store.go New
	pathPrefix := path.Join("/", c.Prefix)
	if !strings.HasSuffix(pathPrefix, "/") {
		pathPrefix += "/"
	}
	// upstream-shim end
	return &encoder{
		codec:          c.Codec,
		transformer:    transformer,
		pathPrefix:     pathPrefix,
		resourcePrefix: "/" + strings.TrimPrefix(opts.ResourcePrefix, "/"),
		versioner:      storage.APIObjectVersioner{},
		resource:       c.GroupResource,
	}, nil
}

// encode returns the etcd key of key, obj's encoding, and the value to store,
// as the etcd3 storage's Create does.
func (e *encoder) encode(ctx context.Context, key string, obj runtime.Object) (string, []byte, []byte, error) {
	// upstream-shim begin: k8s.io/apiserver/pkg/storage/etcd3/store.go store.Create
	key, err := storage.PrepareKey(e.resourcePrefix, key, false)
	if err != nil {
		return "", nil, nil, err
	}
	etcdKey := e.pathPrefix + strings.TrimPrefix(key, "/")
	if version, err := e.versioner.ObjectResourceVersion(obj); err == nil && version != 0 {
		return "", nil, nil, storage.ErrResourceVersionSetOnCreate
	}
	if err := e.versioner.PrepareObjectForStorage(obj); err != nil {
		return "", nil, nil, fmt.Errorf("PrepareObjectForStorage failed: %v", err)
	}
	data, err := runtime.Encode(e.codec, obj)
	if err != nil {
		return "", nil, nil, err
	}
	stored, err := e.transformer.TransformToStorage(ctx, data, value.DefaultContext(etcdKey))
	if err != nil {
		return "", nil, nil, storage.NewInternalError(err)
	}
	// upstream-shim end
	return etcdKey, data, stored, nil
}

// PreparingStorage is the IPAddress storage. A create run with a context of
// WithPrepare is encoded into its Prepared and not written; the object comes
// back as stored but without a resourceVersion. Every other call goes to the
// storage it wraps.
type PreparingStorage struct {
	storage.Interface
	enc     *encoder
	servers []string
}

// NewPreparingStorage wraps s, the storage opts configure.
func NewPreparingStorage(s storage.Interface, opts generic.RESTOptions) (*PreparingStorage, error) {
	enc, err := newEncoder(opts)
	if err != nil {
		return nil, err
	}
	return &PreparingStorage{Interface: s, enc: enc, servers: Servers(opts)}, nil
}

// Servers are the etcd servers the storage writes to.
func (s *PreparingStorage) Servers() []string { return s.servers }

// Servers are the etcd servers the storage writes to.
func Servers(opts generic.RESTOptions) []string {
	if opts.StorageConfig == nil {
		return nil
	}
	return opts.StorageConfig.Transport.ServerList
}

// Create encodes obj into the context's Prepared, or creates it.
func (s *PreparingStorage) Create(ctx context.Context, key string, obj, out runtime.Object, ttl uint64) error {
	p := preparedFrom(ctx)
	if p == nil || ttl != 0 {
		return s.Interface.Create(ctx, key, obj, out, ttl)
	}
	etcdKey, _, stored, err := s.enc.encode(ctx, key, obj)
	if err != nil {
		return err
	}
	if out != nil {
		o, v := reflect.ValueOf(out), reflect.ValueOf(obj)
		if o.Type() != v.Type() || o.Kind() != reflect.Pointer {
			return fmt.Errorf("preparing %s: storing a %T into a %T", etcdKey, obj, out)
		}
		o.Elem().Set(v.Elem())
	}
	p.Key, p.Data = etcdKey, stored
	return nil
}

// ServiceStorage is the Service storage. A create whose context's Slot holds
// a write for the object stores both in one transaction; every other call
// goes to the storage it wraps.
type ServiceStorage struct {
	storage.Interface
	enc     *encoder
	decoder etcd3.Decoder
	kv      clientv3.KV
	servers []string
}

// NewServiceStorage wraps s, the storage opts configure, and writes joint
// creates with kv, a client of the same etcd servers.
func NewServiceStorage(s storage.Interface, opts generic.RESTOptions, kv clientv3.KV) (*ServiceStorage, error) {
	enc, err := newEncoder(opts)
	if err != nil {
		return nil, err
	}
	return &ServiceStorage{
		Interface: s,
		enc:       enc,
		decoder:   etcd3.NewDefaultDecoder(enc.codec, enc.versioner),
		kv:        kv,
		servers:   Servers(opts),
	}, nil
}

// Servers are the etcd servers the Services are stored on.
func (s *ServiceStorage) Servers() []string { return s.servers }

// Create stores obj, and the writes its context's Slot holds for it: all
// but the first each in a transaction of its own, then the first with obj.
func (s *ServiceStorage) Create(ctx context.Context, key string, obj, out runtime.Object, ttl uint64) error {
	writes := From(ctx).Take(obj)
	if len(writes) == 0 {
		return s.Interface.Create(ctx, key, obj, out, ttl)
	}
	if ttl != 0 {
		return done(writes, NotWritten, fmt.Errorf("a Service create with a TTL cannot carry its IPAddress"))
	}
	for i, w := range writes[1:] {
		outcome, err := s.createAlone(ctx, w)
		if outcome != Written {
			rest := append([]*Write{w}, writes[i+2:]...)
			return done(append(rest, writes[0]), outcome, err)
		}
		if err := w.Done(Written); err != nil {
			return done(append(writes[i+2:], writes[0]), NotWritten, err)
		}
	}
	outcome, err := s.create(ctx, key, obj, out, writes[0])
	return done(writes[:1], outcome, err)
}

// done tells writes[0] outcome, and the other writes, which were not tried,
// NotWritten. The error is writes[0]'s for AddressTaken, else err.
func done(writes []*Write, outcome Outcome, err error) error {
	doneErr := writes[0].Done(outcome)
	for _, w := range writes[1:] {
		_ = w.Done(NotWritten)
	}
	if outcome != AddressTaken {
		return err
	}
	if doneErr == nil {
		doneErr = fmt.Errorf("IPAddress key %s already exists", writes[0].Key)
	}
	return doneErr
}

// createAlone writes w if its key does not exist.
func (s *ServiceStorage) createAlone(ctx context.Context, w *Write) (Outcome, error) {
	start := time.Now()
	resp, err := s.kv.Txn(ctx).If(
		clientv3.Compare(clientv3.ModRevision(w.Key), "=", 0),
	).Then(
		clientv3.OpPut(w.Key, string(w.Data)),
	).Commit()
	metrics.RecordEtcdRequest("create", ipAddresses, err, start)
	switch {
	case err != nil:
		return NotWritten, err
	case !resp.Succeeded:
		return AddressTaken, nil
	default:
		return Written, nil
	}
}

// ipAddresses is the resource the writes are of, for the etcd request metrics.
var ipAddresses = schema.GroupResource{Group: "networking.k8s.io", Resource: "ipaddresses"}

// create runs the transaction: both keys are written if neither exists.
func (s *ServiceStorage) create(ctx context.Context, key string, obj, out runtime.Object, w *Write) (Outcome, error) {
	etcdKey, data, stored, err := s.enc.encode(ctx, key, obj)
	if err != nil {
		return NotWritten, err
	}
	start := time.Now()
	resp, err := s.kv.Txn(ctx).If(
		clientv3.Compare(clientv3.ModRevision(etcdKey), "=", 0),
		clientv3.Compare(clientv3.ModRevision(w.Key), "=", 0),
	).Then(
		clientv3.OpPut(etcdKey, string(stored)),
		clientv3.OpPut(w.Key, string(w.Data)),
	).Else(
		clientv3.OpGet(etcdKey, clientv3.WithCountOnly()),
	).Commit()
	metrics.RecordEtcdRequest("create", s.enc.resource, err, start)
	if err != nil {
		return NotWritten, err
	}
	if !resp.Succeeded {
		if r := resp.Responses[0].GetResponseRange(); r != nil && r.Count > 0 {
			return NotWritten, storage.NewKeyExistsError(etcdKey, 0)
		}
		return AddressTaken, nil
	}
	if out != nil {
		if err := s.decoder.Decode(data, out, resp.Header.Revision); err != nil {
			return Written, err
		}
	}
	return Written, nil
}

// Wrap wraps the storage s of a resource, whose options are opts, and
// returns what else to do when the storage is destroyed (or nil).
type Wrap func(s storage.Interface, opts generic.RESTOptions) (storage.Interface, func(), error)

// Decorating is a RESTOptionsGetter whose options for Resource decorate the
// storage they build with Wrap, over whatever decorates it already (the watch
// cache), so the registry's store holds the wrapped storage from the start.
type Decorating struct {
	generic.RESTOptionsGetter
	Resource schema.GroupResource
	Wrap     Wrap
}

// GetRESTOptions is the wrapped getter's, with the storage of Resource wrapped.
func (d Decorating) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := d.RESTOptionsGetter.GetRESTOptions(resource, example)
	if err != nil || resource != d.Resource || opts.Decorator == nil {
		return opts, err
	}
	decorate, recorded := opts.Decorator, opts
	opts.Decorator = func(config *storagebackend.ConfigForResource, resourcePrefix string, cacheKeyFunc func(runtime.Object) (string, error),
		newFunc, newListFunc func() runtime.Object, getAttrsFunc storage.AttrFunc, trigger storage.IndexerFuncs, indexers *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
		s, destroy, err := decorate(config, resourcePrefix, cacheKeyFunc, newFunc, newListFunc, getAttrsFunc, trigger, indexers)
		if err != nil {
			return s, destroy, err
		}
		wrapped, destroyWrap, err := d.Wrap(s, recorded)
		if err != nil {
			destroy()
			return nil, nil, fmt.Errorf("storage of %s: %w", d.Resource, err)
		}
		if destroyWrap == nil {
			return wrapped, destroy, nil
		}
		return wrapped, func() { destroy(); destroyWrap() }, nil
	}
	return opts, nil
}
