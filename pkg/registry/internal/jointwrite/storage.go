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
	"errors"
	"fmt"
	"path"
	"reflect"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/kubernetes"
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

// Built is a resource's storage as its options built it, with what built it.
type Built struct {
	Storage     storage.Interface
	Options     generic.RESTOptions
	NewFunc     func() runtime.Object
	NewListFunc func() runtime.Object
}

// newStore is upstream's etcd3 storage of the resource b is, over client but
// with its single-key writes going to puts: the same encoding, storage
// version, transformer and keys as the registry's own storage, for netfork's
// own writes of them.
func newStore(b Built, client *kubernetes.Client, puts kubernetes.Interface) (storage.Interface, error) {
	c := b.Options.StorageConfig
	if c == nil || c.Codec == nil {
		return nil, fmt.Errorf("storage of %s has no codec", b.Options.ResourcePrefix)
	}
	transformer := c.Transformer
	if transformer == nil {
		transformer = identity.NewEncryptCheckTransformer()
	}
	versioner := storage.APIObjectVersioner{}
	s, err := etcd3.New(&kubernetes.Client{Client: client.Client, Kubernetes: puts}, nil, c.Codec, b.NewFunc, b.NewListFunc,
		c.Prefix, "/"+strings.TrimPrefix(b.Options.ResourcePrefix, "/"), c.GroupResource, transformer, c.LeaseManagerConfig,
		etcd3.NewDefaultDecoder(c.Codec, versioner), versioner)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Servers are the etcd servers opts store to.
func Servers(opts generic.RESTOptions) []string {
	if opts.StorageConfig == nil {
		return nil
	}
	return opts.StorageConfig.Transport.ServerList
}

// errUnexpectedPut is a put of the Service storage's own etcd3 storage that
// no joint create asked for.
var errUnexpectedPut = errors.New("jointwrite: a put outside a joint create")

// PreparingStorage is the IPAddress storage. A create run with a context of
// WithPrepare is encoded into its Prepared as the etcd3 storage would write
// it, and not written: the object comes back as stored but without a
// resourceVersion. A delete run with such a context checks the object the
// caller read from the watch cache as the etcd3 storage would, and puts its
// key and revision into the Prepared. Every other call goes to the storage
// it wraps. Preparing sends etcd nothing, so it records no etcd request.
type PreparingStorage struct {
	storage.Interface
	enc     *encoder
	servers []string
}

// NewPreparingStorage wraps b's storage.
func NewPreparingStorage(b Built) (*PreparingStorage, error) {
	enc, err := newEncoder(b.Options)
	if err != nil {
		return nil, err
	}
	return &PreparingStorage{Interface: b.Storage, enc: enc, servers: Servers(b.Options)}, nil
}

// Servers are the etcd servers the storage writes to.
func (s *PreparingStorage) Servers() []string { return s.servers }

// Create encodes obj into the context's Prepared, or creates it.
func (s *PreparingStorage) Create(ctx context.Context, key string, obj, out runtime.Object, ttl uint64) error {
	p := preparedFrom(ctx)
	if p == nil || ttl != 0 {
		return s.Interface.Create(ctx, key, obj, out, ttl)
	}
	etcdKey, err := s.enc.key(key)
	if err != nil {
		return err
	}
	stored, err := s.enc.encode(ctx, etcdKey, obj)
	if err != nil {
		return err
	}
	if err := copyInto(out, obj); err != nil {
		return err
	}
	p.Key, p.Data = etcdKey, stored
	return nil
}

// Delete puts into the context's Prepared the key of key and the revision of
// cachedExistingObject, once that passed preconditions and validateDeletion,
// or deletes key.
func (s *PreparingStorage) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc, cachedExistingObject runtime.Object, opts storage.DeleteOptions) error {
	p := preparedFrom(ctx)
	if p == nil {
		return s.Interface.Delete(ctx, key, out, preconditions, validateDeletion, cachedExistingObject, opts)
	}
	etcdKey, err := s.enc.key(key)
	if err != nil {
		return err
	}
	if cachedExistingObject == nil {
		return fmt.Errorf("preparing the delete of %s: no object to delete", etcdKey)
	}
	rv, err := s.enc.versioner.ObjectResourceVersion(cachedExistingObject)
	if err != nil || rv == 0 {
		return fmt.Errorf("preparing the delete of %s: the object has no resourceVersion", etcdKey)
	}
	if err := preconditions.Check(key, cachedExistingObject); err != nil {
		return err
	}
	if err := validateDeletion(ctx, cachedExistingObject); err != nil {
		return err
	}
	if err := copyInto(out, cachedExistingObject); err != nil {
		return err
	}
	p.Key, p.Revision = etcdKey, int64(rv)
	return nil
}

// copyInto sets *out to *obj, both pointers to one struct type.
func copyInto(out, obj runtime.Object) error {
	if out == nil {
		return nil
	}
	o, v := reflect.ValueOf(out), reflect.ValueOf(obj)
	if o.Type() != v.Type() || o.Kind() != reflect.Pointer {
		return fmt.Errorf("jointwrite: storing a %T into a %T", obj, out)
	}
	o.Elem().Set(v.Elem())
	return nil
}

// encoder encodes the objects of one resource as its etcd3 storage does.
type encoder struct {
	codec          runtime.Codec
	transformer    value.Transformer
	prefix         string
	resourcePrefix string
	versioner      storage.Versioner
}

func newEncoder(opts generic.RESTOptions) (*encoder, error) {
	c := opts.StorageConfig
	if c == nil || c.Codec == nil {
		return nil, fmt.Errorf("storage of %s has no codec", opts.ResourcePrefix)
	}
	transformer := c.Transformer
	if transformer == nil {
		transformer = identity.NewEncryptCheckTransformer()
	}
	return &encoder{
		codec:          c.Codec,
		transformer:    transformer,
		prefix:         c.Prefix,
		resourcePrefix: "/" + strings.TrimPrefix(opts.ResourcePrefix, "/"),
		versioner:      storage.APIObjectVersioner{},
	}, nil
}

// key is the etcd key of the storage key key: the storage's prefix, then key.
func (e *encoder) key(key string) (string, error) {
	if _, err := storage.PrepareKey(e.resourcePrefix, key, false); err != nil {
		return "", err
	}
	return path.Join("/", e.prefix, key), nil
}

// encode is obj as the etcd3 storage's Create stores it at etcdKey.
func (e *encoder) encode(ctx context.Context, etcdKey string, obj runtime.Object) ([]byte, error) {
	// upstream-shim begin: k8s.io/apiserver/pkg/storage/etcd3/store.go store.Create
	if version, err := e.versioner.ObjectResourceVersion(obj); err == nil && version != 0 {
		return nil, storage.ErrResourceVersionSetOnCreate
	}
	if err := e.versioner.PrepareObjectForStorage(obj); err != nil {
		return nil, fmt.Errorf("PrepareObjectForStorage failed: %v", err)
	}
	data, err := runtime.Encode(e.codec, obj)
	if err != nil {
		return nil, err
	}
	stored, err := e.transformer.TransformToStorage(ctx, data, value.DefaultContext(etcdKey))
	if err != nil {
		return nil, storage.NewInternalError(err)
	}
	// upstream-shim end
	return stored, nil
}

// ServiceStorage is the Service storage. A create whose context's Slot holds
// writes for the object stores them with it; every other call goes to the
// storage it wraps.
type ServiceStorage struct {
	storage.Interface
	newFunc func() runtime.Object
	writer  storage.Interface
	kv      clientv3.KV
	servers []string
}

// NewServiceStorage wraps b's storage; its joint writes go through client.
func NewServiceStorage(b Built, client *kubernetes.Client) (*ServiceStorage, error) {
	writer, err := newStore(b, client, joint{Interface: client.Kubernetes, kv: client.KV})
	if err != nil {
		return nil, err
	}
	return &ServiceStorage{Interface: b.Storage, newFunc: b.NewFunc, writer: writer, kv: client.KV, servers: Servers(b.Options)}, nil
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
	put := &jointPut{write: writes[0]}
	err := s.writer.Create(context.WithValue(ctx, jointKey{}, put), key, obj, out, 0)
	outcome := Written
	switch {
	case put.taken:
		outcome = AddressTaken
	case err != nil && !put.written:
		outcome = NotWritten
	}
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

// jointPut is the IPAddress write of a joint create, and what became of it.
type jointPut struct {
	write          *Write
	written, taken bool
}

type jointKey struct{}

// joint turns the Service storage's put of a new Service into one
// transaction with the IPAddress put of its context's jointPut: both keys
// are written if neither exists.
type joint struct {
	kubernetes.Interface
	kv clientv3.KV
}

func (j joint) OptimisticPut(ctx context.Context, key string, value []byte, expectedRevision int64, opts kubernetes.PutOptions) (kubernetes.PutResponse, error) {
	put, _ := ctx.Value(jointKey{}).(*jointPut)
	if put == nil || expectedRevision != 0 || opts.LeaseID != 0 {
		return kubernetes.PutResponse{}, errUnexpectedPut
	}
	resp, err := j.kv.Txn(ctx).If(
		clientv3.Compare(clientv3.ModRevision(key), "=", 0),
		clientv3.Compare(clientv3.ModRevision(put.write.Key), "=", 0),
	).Then(
		clientv3.OpPut(key, string(value)),
		clientv3.OpPut(put.write.Key, string(put.write.Data)),
	).Else(
		clientv3.OpGet(key, clientv3.WithCountOnly()),
	).Commit()
	if err != nil {
		return kubernetes.PutResponse{}, err
	}
	if !resp.Succeeded {
		// The storage answers a failed put with its key-exists error; when it
		// was the IPAddress that existed, the create answers with Done's.
		if r := resp.Responses[0].GetResponseRange(); r == nil || r.Count == 0 {
			put.taken = true
		}
		return kubernetes.PutResponse{Revision: resp.Header.Revision}, nil
	}
	put.written = true
	return kubernetes.PutResponse{Succeeded: true, Revision: resp.Header.Revision}, nil
}

// detachedTimeout bounds what a Service delete still does once the Service
// passed its own checks, when the request's client has left: the default
// --request-timeout, which upstream's loopback IPAddress delete is served with.
const detachedTimeout = time.Minute

// detached is ctx without its cancellation and deadline, for detachedTimeout.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), detachedTimeout)
}

// Delete deletes the Service at key and, when the context carries a
// DeletePreparer, one IPAddress of it in the same transaction. The IPAddress
// delete is prepared once the Service's own checks passed (preconditions, its
// delete admission), for the state of the Service the delete is tried at.
// Upstream deletes the Service right after those checks, and its IPAddresses
// after it, on a context of their own: so what is left here once they passed,
// the IPAddress delete's admission and the transaction, goes on when the
// client leaves (or its timeout runs out) meanwhile.
func (s *ServiceStorage) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc, cachedExistingObject runtime.Object, opts storage.DeleteOptions) error {
	prepare := deletePreparerFrom(ctx)
	if prepare == nil || opts.ExpectTransformOrDecodeError {
		return s.Interface.Delete(ctx, key, out, preconditions, validateDeletion, cachedExistingObject, opts)
	}
	slot := From(ctx)
	if cachedExistingObject == nil {
		// What the watch cache holds, as the cacher passes down; a stale copy
		// fails the transaction, which then reads the current one.
		cached := s.newFunc()
		if err := s.Get(ctx, key, storage.GetOptions{ResourceVersion: "0"}, cached); err == nil {
			cachedExistingObject = cached
		}
	}
	del := &jointDelete{}
	validate := func(ctx context.Context, obj runtime.Object) error {
		del.delete, del.checked = nil, false
		if err := validateDeletion(ctx, obj); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			// The client left during the checks: upstream's etcd delete,
			// which follows them, would fail too.
			return err
		}
		del.checked = true
		ctx, cancel := detached(ctx)
		defer cancel()
		if deletes := prepare(ctx, slot, obj); len(deletes) > 0 {
			// One IPAddress at most: two deleted in one transaction would
			// share a resourceVersion. The others are deleted on release.
			del.delete = deletes[0]
		}
		return nil
	}
	err := s.writer.Delete(context.WithValue(ctx, jointDeleteKey{}, del), key, out, preconditions, validate, cachedExistingObject, opts)
	if del.deleted {
		del.delete.Done(Written)
	}
	return err
}

// jointDelete is the IPAddress delete of a Service delete, and whether it
// happened; checked is set once the Service passed its own checks.
type jointDelete struct {
	delete           *Delete
	checked, deleted bool
}

type jointDeleteKey struct{}

func (j joint) OptimisticDelete(ctx context.Context, key string, expectedRevision int64, opts kubernetes.DeleteOptions) (kubernetes.DeleteResponse, error) {
	del, _ := ctx.Value(jointDeleteKey{}).(*jointDelete)
	if del != nil && del.checked {
		var cancel context.CancelFunc
		ctx, cancel = detached(ctx)
		defer cancel()
	}
	if del == nil || del.delete == nil {
		return j.Interface.OptimisticDelete(ctx, key, expectedRevision, opts)
	}
	d := del.delete
	resp, err := j.kv.Txn(ctx).If(
		clientv3.Compare(clientv3.ModRevision(key), "=", expectedRevision),
		clientv3.Compare(clientv3.ModRevision(d.Key), "=", d.Revision),
	).Then(
		clientv3.OpDelete(key),
		clientv3.OpDelete(d.Key),
	).Else(
		clientv3.OpGet(key),
	).Commit()
	if err != nil {
		return kubernetes.DeleteResponse{}, err
	}
	if resp.Succeeded {
		del.deleted = true
		return kubernetes.DeleteResponse{Succeeded: true, Revision: resp.Header.Revision}, nil
	}
	kvs := resp.Responses[0].GetResponseRange().GetKvs()
	if len(kvs) == 1 && kvs[0].ModRevision == expectedRevision {
		// The Service is as expected, the IPAddress is not (deleted or
		// changed since): the Service goes alone, the IPAddress is left to
		// its release.
		return j.Interface.OptimisticDelete(ctx, key, expectedRevision, opts)
	}
	r := kubernetes.DeleteResponse{Revision: resp.Header.Revision}
	if len(kvs) == 1 && opts.GetOnFailure {
		r.KV = kvs[0]
	}
	return r, nil
}

// Wrap wraps the storage b built, and returns what else to do when the
// storage is destroyed (or nil).
type Wrap func(b Built) (storage.Interface, func(), error)

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
		wrapped, destroyWrap, err := d.Wrap(Built{Storage: s, Options: recorded, NewFunc: newFunc, NewListFunc: newListFunc})
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
