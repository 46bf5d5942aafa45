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

package ipaddresswriter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"sync/atomic"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apiserver/pkg/admission"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/storage"
	storeerr "k8s.io/apiserver/pkg/storage/errors"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/applyconfigurations"
	networkingv1client "k8s.io/client-go/kubernetes/typed/networking/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/networking"
	_ "k8s.io/kubernetes/pkg/apis/networking/install" // IPAddress conversions in legacyscheme
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/netfork/netfork/pkg/registry/internal/jointwrite"
)

// FieldManager is the manager name of the writes, the one upstream's loopback
// client's user agent ("kube-apiserver/v1.37.2 ...") gives them.
const FieldManager = "kube-apiserver"

var (
	ipAddressKind     = networkingv1.SchemeGroupVersion.WithKind("IPAddress")
	ipAddressResource = networkingv1.SchemeGroupVersion.WithResource("ipaddresses")
	// ipAddressesPath is the collection's URL path, which a loopback POST goes to.
	ipAddressesPath = "/apis/" + networkingv1.SchemeGroupVersion.String() + "/" + ipAddressResource.Resource
)

// createOptionsType and deleteOptionsType are the kinds the API handlers set on
// the options they decode, which admission sees as request.options.
var (
	createOptionsType = metav1.TypeMeta{APIVersion: metav1.SchemeGroupVersion.String(), Kind: "CreateOptions"}
	deleteOptionsType = metav1.TypeMeta{APIVersion: metav1.SchemeGroupVersion.String(), Kind: "DeleteOptions"}
)

// Writer creates and deletes IPAddresses; see the package documentation.
type Writer struct {
	admit       admission.Interface
	requestInfo genericapirequest.RequestInfoResolver
	loopback    networkingv1client.IPAddressesGetter
	user        user.Info
	bound       atomic.Pointer[binding]
}

// binding is the storage the Writer writes through once bound.
type binding struct {
	store  *genericregistry.Store
	fields *createFields
	// preparing is set when the store's storage can prepare a write for the
	// Service storage (a jointwrite.PreparingStorage), on the etcd servers servers.
	preparing bool
	servers   []string
}

// New returns a Writer that admits its writes with admit (the apiserver's
// admission chain; nil admits everything), describes them as requestInfo (the
// apiserver's resolver; nil is a default generic apiserver's) describes a
// request and, until Bind, writes through loopback.
func New(admit admission.Interface, requestInfo genericapirequest.RequestInfoResolver, loopback networkingv1client.IPAddressesGetter) *Writer {
	if admit == nil {
		admit = admitAll{}
	}
	// The API handlers wrap the chain so that what admission attaches to a
	// request (audit annotations) is recorded on its audit event.
	admit = admission.WithAudit(admit)
	if requestInfo == nil {
		requestInfo = genericapiserver.NewRequestInfoResolver(&genericapiserver.Config{
			LegacyAPIGroupPrefixes: sets.NewString(genericapiserver.DefaultLegacyAPIPrefix),
		})
	}
	return &Writer{
		admit:       admit,
		requestInfo: requestInfo,
		loopback:    loopback,
		// The user upstream's loopback token authenticates as
		// (genericapiserver.AuthorizeClientBearerToken), groups in its order,
		// which admission sees.
		user: &user.DefaultInfo{
			Name:   user.APIServerUser,
			UID:    string(uuid.NewUUID()),
			Groups: []string{user.AllAuthenticated, user.SystemPrivilegedGroup},
		},
	}
}

// Bind makes the Writer write through store, the apiserver's IPAddress
// storage. It is called once, when the networking group's storage is built.
func (w *Writer) Bind(store *genericregistry.Store) error {
	if store == nil {
		return fmt.Errorf("binding the IPAddress writer: no storage")
	}
	fields, err := newFieldManager(store.GetResetFields())
	if err != nil {
		return fmt.Errorf("binding the IPAddress writer: %w", err)
	}
	b := &binding{store: store, fields: newCreateFields(fields)}
	if p, ok := store.Storage.Storage.(*jointwrite.PreparingStorage); ok {
		b.preparing, b.servers = true, p.Servers()
	}
	w.bound.Store(b)
	return nil
}

// newFieldManager is the field manager the API installer builds for
// networking.k8s.io/v1 IPAddresses, over the schema client-go carries, with
// the storage's reset fields. The installer keeps its own in its handlers'
// request scope, out of reach.
func newFieldManager(resetFields map[fieldpath.APIVersion]*fieldpath.Set) (*managedfields.FieldManager, error) {
	// upstream-shim begin: k8s.io/apiserver/pkg/endpoints/installer.go APIInstaller.registerResourceHandlers
	fields, err := managedfields.NewDefaultFieldManager(
		applyconfigurations.NewTypeConverter(legacyscheme.Scheme),
		legacyscheme.Scheme, legacyscheme.Scheme, legacyscheme.Scheme,
		ipAddressKind, networking.SchemeGroupVersion, "", fieldpath.NewExcludeFilterSetMap(resetFields))
	// upstream-shim end
	if err != nil {
		return nil, fmt.Errorf("field manager for %s: %w", ipAddressKind, err)
	}
	return fields, nil
}

// Create stores obj as a POST of it by the loopback client would.
func (w *Writer) Create(ctx context.Context, obj *networkingv1.IPAddress, opts metav1.CreateOptions) (*networkingv1.IPAddress, error) {
	b := w.bound.Load()
	if b == nil {
		return w.loopback.IPAddresses().Create(ctx, obj, opts)
	}
	return w.create(ctx, b, obj, opts, nil)
}

// Prepare runs obj through everything Create does but the etcd write:
// admission, managed fields, the registry's strategy and validation. It
// returns the object as it will be stored, without a resourceVersion, and
// its encoded key and value, for the Service storage of slot to write. It
// returns jointwrite.ErrCannotPrepare, having done nothing, when the Writer
// is not bound in process or the Service storage of slot is on other etcd
// servers than the IPAddresses.
func (w *Writer) Prepare(ctx context.Context, slot *jointwrite.Slot, obj *networkingv1.IPAddress) (*networkingv1.IPAddress, *jointwrite.Prepared, error) {
	b := w.bound.Load()
	if b == nil || !b.preparing || !slot.Accepts(b.servers) {
		return nil, nil, jointwrite.ErrCannotPrepare
	}
	p := &jointwrite.Prepared{}
	created, err := w.create(ctx, b, obj, metav1.CreateOptions{}, p)
	if err != nil {
		return nil, nil, err
	}
	if p.Key == "" {
		return nil, nil, fmt.Errorf("preparing IPAddress %s: the IPAddress storage wrote it instead", obj.Name)
	}
	return created, p, nil
}

// create is Create through b; with p set, the storage encodes the object into p instead of writing it.
func (w *Writer) create(ctx context.Context, b *binding, obj *networkingv1.IPAddress, opts metav1.CreateOptions, p *jointwrite.Prepared) (*networkingv1.IPAddress, error) {
	ctx, cancel, err := w.requestContext(ctx, http.MethodPost, ipAddressesPath)
	if err != nil {
		return nil, err
	}
	defer cancel()
	if p != nil {
		ctx = jointwrite.WithPrepare(ctx, p)
	}
	opts.TypeMeta = createOptionsType

	in := &networking.IPAddress{}
	if err := legacyscheme.Scheme.Convert(obj, in, nil); err != nil {
		return nil, fmt.Errorf("converting IPAddress %s to the internal version: %w", obj.Name, err)
	}
	// upstream-shim begin: k8s.io/apiserver/pkg/endpoints/handlers/create.go createHandler
	rest.WipeObjectMetaSystemFields(&in.ObjectMeta)
	cached := b.fields.set(in)
	var created runtime.Object = in

	attrs := admission.NewAttributesRecord(created, nil, ipAddressKind, "", obj.Name, ipAddressResource, "",
		admission.Create, &opts, false, w.user)
	// upstream-shim end
	if err := w.mutateGuarded(ctx, attrs, in, cached); err != nil {
		return nil, err
	}
	// upstream-shim begin: k8s.io/apiserver/pkg/endpoints/handlers/create.go createHandler
	out, err := b.store.Create(ctx, created, rest.AdmissionToValidateObjectFunc(w.admit, attrs, objectInterfaces), &opts)
	if err != nil {
		return nil, err
	}
	// upstream-shim end
	result := &networkingv1.IPAddress{}
	if err := legacyscheme.Scheme.Convert(out, result, nil); err != nil {
		return nil, fmt.Errorf("converting stored IPAddress %s to %s: %w", obj.Name, networkingv1.SchemeGroupVersion, err)
	}
	return result, nil
}

// Delete deletes the IPAddress name as a DELETE of it by the loopback client would.
func (w *Writer) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	b := w.bound.Load()
	if b == nil {
		return w.loopback.IPAddresses().Delete(ctx, name, opts)
	}
	ctx, cancel, err := w.requestContext(ctx, http.MethodDelete, ipAddressesPath+"/"+name)
	if err != nil {
		return err
	}
	defer cancel()

	opts.TypeMeta = deleteOptionsType
	return b.delete(ctx, name, w.admitDelete(name, &opts), &opts)
}

// admitDelete is the admission of the delete of the IPAddress name, as the
// API handler passes it to the storage: mutating, then validating admission,
// each run once on the object the delete removes. Upstream's handler runs no
// admission before it (so neither does this: a mutating webhook sees one
// DELETE, with its oldObject).
func (w *Writer) admitDelete(name string, opts *metav1.DeleteOptions) rest.ValidateObjectFunc {
	// upstream-shim begin: k8s.io/apiserver/pkg/endpoints/handlers/delete.go DeleteResource
	attrs := admission.NewAttributesRecord(nil, nil, ipAddressKind, "", name, ipAddressResource, "",
		admission.Delete, opts, false, w.user)
	return rest.AdmissionToValidateObjectDeleteFunc(w.admit, attrs, objectInterfaces)
	// upstream-shim end
}

// PrepareDelete runs the delete of the IPAddress name as Delete would, up to
// the etcd delete, which it leaves to the Service storage of slot: admission,
// and the check of the object the watch cache holds. It returns the etcd key
// and the revision to delete it at. It returns jointwrite.ErrCannotPrepare,
// having done nothing, when Delete would do more than one conditional etcd
// delete (not bound in process, finalizers, not in the watch cache) or the
// Service storage of slot is on other etcd servers than the IPAddresses.
func (w *Writer) PrepareDelete(ctx context.Context, slot *jointwrite.Slot, name string) (*jointwrite.Prepared, error) {
	b := w.bound.Load()
	if b == nil || !b.preparing || !slot.Accepts(b.servers) {
		return nil, jointwrite.ErrCannotPrepare
	}
	ctx, cancel, err := w.requestContext(ctx, http.MethodDelete, ipAddressesPath+"/"+name)
	if err != nil {
		return nil, err
	}
	defer cancel()
	key, err := b.store.KeyFunc(ctx, name)
	if err != nil {
		return nil, err
	}
	cached := b.store.NewFunc()
	if err := b.store.Storage.Get(ctx, key, storage.GetOptions{ResourceVersion: "0"}, cached); err != nil || hasFinalizers(cached) {
		return nil, jointwrite.ErrCannotPrepare
	}

	validate := w.admitDelete(name, &metav1.DeleteOptions{TypeMeta: deleteOptionsType})
	p := &jointwrite.Prepared{}
	if err := b.deleteStored(jointwrite.WithPrepare(ctx, p), key, name, storage.ValidateObjectFunc(validate), cached); err != nil {
		return nil, err
	}
	if p.Key == "" {
		return nil, fmt.Errorf("preparing the delete of IPAddress %s: the IPAddress storage deleted it instead", name)
	}
	return p, nil
}

// errNeedsStore stops a direct delete of an IPAddress that the registry's
// Delete would not simply remove.
var errNeedsStore = errors.New("the IPAddress has finalizers")

// delete removes the IPAddress name with one conditional etcd delete, where
// the registry's Store.Delete first reads it from etcd (1.37 serves a read
// without resourceVersion from etcd, not the watch cache). The storage checks
// the object it deletes, the watch cache's copy or, when that is stale or
// missing, a fresh read, with validate, and deletes it only at that revision.
// What the registry would do more than remove it, for an IPAddress with
// finalizers (set a deletion timestamp) or for options beyond a plain delete,
// is left to Store.Delete. IPAddress storage has no graceful deletion and no
// delete hooks, so for the rest the outcome is the same.
func (b *binding) delete(ctx context.Context, name string, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions) error {
	if plainDelete(opts) {
		key, err := b.store.KeyFunc(ctx, name)
		if err != nil {
			return err
		}
		err = b.deleteStored(ctx, key, name, func(ctx context.Context, obj runtime.Object) error {
			if hasFinalizers(obj) {
				return errNeedsStore
			}
			return validate(ctx, obj)
		}, nil)
		if !errors.Is(err, errNeedsStore) {
			return err
		}
	}
	_, _, err := b.store.Delete(ctx, name, validate, opts)
	return err
}

// hasFinalizers tells whether obj has finalizers (or no object metadata):
// the registry's delete would not simply remove it.
func hasFinalizers(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	return err != nil || len(m.GetFinalizers()) > 0
}

// deleteStored is the etcd delete at the heart of Store.Delete of the
// IPAddress name at key, checked by check and without the read before it;
// cached, when set, is the object the caller read (from the watch cache).
// check's own error comes back as it is.
func (b *binding) deleteStored(ctx context.Context, key, name string, check storage.ValidateObjectFunc, cached runtime.Object) error {
	// upstream-shim begin: k8s.io/apiserver/pkg/registry/generic/registry/store.go Store.Delete
	err := b.store.Storage.Delete(ctx, key, b.store.NewFunc(), &storage.Preconditions{}, check, false, cached, storage.DeleteOptions{})
	if err != nil {
		return storeerr.InterpretDeleteError(err, b.store.DefaultQualifiedResource, name)
	}
	return nil
	// upstream-shim end
}

// plainDelete says opts ask for nothing but removing the object: every field
// but the type is unset, so an option added upstream later goes to Store.Delete too.
func plainDelete(opts *metav1.DeleteOptions) bool {
	return reflect.DeepEqual(*opts, metav1.DeleteOptions{TypeMeta: opts.TypeMeta})
}

// requestContext is the context a loopback request would be served with: the
// loopback user and the RequestInfo this apiserver's handler chain gives a
// request of method on path, nothing of the caller's (whose user, audit event,
// warnings and request info are the Service request's), but the caller's
// deadline and cancellation. The write's audit annotations are collected in
// an audit context of its own; done, which the caller must call once the
// write is over, ends the context and records them on the caller's audit
// event (see withAuditAnnotations).
func (w *Writer) requestContext(parent context.Context, method, path string) (ctx context.Context, done context.CancelFunc, err error) {
	info, err := w.requestInfo.NewRequestInfo(&http.Request{Method: method, URL: &url.URL{Path: path}})
	if err != nil {
		return nil, nil, fmt.Errorf("describing %s %s: %w", method, path, err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := context.AfterFunc(parent, func() { cancel(context.Cause(parent)) })
	cancelAll := func() { stop(); cancel(nil) }
	if deadline, ok := parent.Deadline(); ok {
		var cancelDeadline context.CancelFunc
		ctx, cancelDeadline = context.WithDeadline(ctx, deadline)
		cancelAll = func() { cancelDeadline(); stop(); cancel(nil) }
	}
	ctx, done = withAuditAnnotations(ctx, parent, cancelAll)
	ctx = genericapirequest.WithUser(ctx, w.user)
	ctx = genericapirequest.WithNamespace(ctx, metav1.NamespaceNone)
	return genericapirequest.WithRequestInfo(ctx, info), done, nil
}

// withAuditAnnotations gives ctx an audit context of its own at the level of
// parent's audited request, when parent's is audited, and returns a done that
// calls cancel and adds the annotations admission attached to the write (a
// ValidatingAdmissionPolicy's auditAnnotations, a webhook's) to parent's
// audit event. Upstream records them on the loopback request's own event,
// which an in-process write does not have; the Service request's is the one
// that holds the write.
func withAuditAnnotations(ctx, parent context.Context, cancel context.CancelFunc) (context.Context, context.CancelFunc) {
	caller := audit.AuditContextFrom(parent)
	if caller == nil {
		return ctx, cancel
	}
	level := caller.GetEventLevel()
	if level == "" || level == auditinternal.LevelNone {
		return ctx, cancel
	}
	ctx = audit.WithAuditContext(ctx)
	own := audit.AuditContextFrom(ctx)
	if err := own.Init(audit.RequestAuditConfig{Level: level}, nil); err != nil {
		return ctx, cancel
	}
	return ctx, func() {
		cancel()
		audit.AddAuditAnnotationsMap(parent, own.GetEventAnnotations())
	}
}

// mutateGuarded runs the mutating half of admission on the create of in, as
// the API handler does inside its managed-fields guard
// (fieldmanager.NewManagedFieldsValidatingAdmissionController): managed fields
// that admission left invalid are put back as they were, with a warning. The
// guard decodes them to know, a third of an IPAddress create's allocations;
// managed fields that are still the copies set made of cached entries are
// the field manager's own and valid as they are.
func (w *Writer) mutateGuarded(ctx context.Context, attrs admission.Attributes, in *networking.IPAddress, cached []metav1.ManagedFieldsEntry) error {
	before := in.ManagedFields
	if err := mutate(ctx, w.admit, attrs, admission.Create); err != nil {
		return err
	}
	if unchanged(in.ManagedFields, cached) {
		return nil
	}
	// upstream-shim begin: k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/admission.go managedFieldsValidatingAdmissionController.Admit
	if err := managedfields.ValidateManagedFields(in.ManagedFields); err != nil {
		in.ManagedFields = before
		warning.AddWarning(ctx, "", fmt.Sprintf(fieldmanager.InvalidManagedFieldsAfterMutatingAdmissionWarningFormat, err.Error()))
	}
	// upstream-shim end
	return nil
}

// mutate runs the mutating half of admit for op, as the API handler does before storing.
func mutate(ctx context.Context, admit admission.Interface, attrs admission.Attributes, op admission.Operation) error {
	// upstream-shim begin: k8s.io/apiserver/pkg/endpoints/handlers/create.go createHandler
	if m, ok := admit.(admission.MutationInterface); ok && m.Handles(op) {
		return m.Admit(ctx, attrs, objectInterfaces)
	}
	return nil
	// upstream-shim end
}

// objectInterfaces are the scheme's, as the API handler's request scope passes to admission.
var objectInterfaces = admission.NewObjectInterfacesFromScheme(legacyscheme.Scheme)

// admitAll is the admission of a Writer built without a chain.
type admitAll struct{}

func (admitAll) Handles(admission.Operation) bool { return false }
