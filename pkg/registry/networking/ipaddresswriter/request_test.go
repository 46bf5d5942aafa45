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
	"net/http"
	"os"
	"reflect"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/registry/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"
	restclient "k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/apis/networking"
	ipaddressstore "k8s.io/kubernetes/pkg/registry/networking/ipaddress/storage"

	"github.com/netfork/netfork/pkg/registry/core/service/allocator/storage/storagetest"
)

func TestMain(m *testing.M) {
	os.Exit(storagetest.Main(m))
}

// TestWriterUserIsUpstreamsLoopbackUser checks the writes' user against the
// one upstream's loopback token authenticates as, built by upstream's own
// code: name and groups, in their order (a policy may read groups[0]).
func TestWriterUserIsUpstreamsLoopbackUser(t *testing.T) {
	loopback := &restclient.Config{BearerToken: "loopback-token"}
	none := authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) { return nil, false, nil })
	authn := &genericapiserver.AuthenticationInfo{Authenticator: none}
	genericapiserver.AuthorizeClientBearerToken(loopback, authn, &genericapiserver.AuthorizationInfo{Authorizer: authorizerfactory.NewAlwaysAllowAuthorizer()})
	req, err := http.NewRequest(http.MethodPost, "https://127.0.0.1"+ipAddressesPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+loopback.BearerToken)
	resp, ok, err := authn.Authenticator.AuthenticateRequest(req)
	if err != nil || !ok {
		t.Fatalf("upstream's loopback authenticator: %v, %t", err, ok)
	}
	w := New(nil, nil, nil)
	if got, want := w.user.GetName(), resp.User.GetName(); got != want {
		t.Errorf("user %q, upstream's loopback user %q", got, want)
	}
	if got, want := w.user.GetGroups(), resp.User.GetGroups(); !reflect.DeepEqual(got, want) {
		t.Errorf("groups %q, upstream's loopback user's %q", got, want)
	}
}

// recordingAdmission records what admission sees of each write and attaches
// an audit annotation to it, as a ValidatingAdmissionPolicy's auditAnnotations do.
type recordingAdmission struct {
	options []runtime.Object
	groups  [][]string
}

const annotationKey = "test.netfork.io/seen"

func (r *recordingAdmission) Handles(admission.Operation) bool { return true }
func (r *recordingAdmission) Validate(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	r.options = append(r.options, a.GetOperationOptions())
	r.groups = append(r.groups, a.GetUserInfo().GetGroups())
	return a.AddAnnotation(annotationKey, string(a.GetOperation()))
}

// newBoundWriter is a Writer, admitted by admit (an admission chain as the
// apiserver's config holds it), bound to upstream's IPAddress storage on etcd.
func newBoundWriter(t *testing.T, admit admission.Interface) *Writer {
	t.Helper()
	st := storagetest.New(t)
	config, err := st.Factory.NewConfig(networking.Resource("ipaddresses"), &networking.IPAddress{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := ipaddressstore.NewREST(getter{generic.RESTOptions{StorageConfig: config, Decorator: generic.UndecoratedStorage, ResourcePrefix: "ipaddresses"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Destroy)
	w := New(admit, nil, nil)
	if err := w.Bind(store.Store); err != nil {
		t.Fatal(err)
	}
	return w
}

type getter struct{ opts generic.RESTOptions }

func (g getter) GetRESTOptions(schema.GroupResource, runtime.Object) (generic.RESTOptions, error) {
	return g.opts, nil
}

// auditedRequest is a context of a request audited at level.
func auditedRequest(t *testing.T, level auditinternal.Level) context.Context {
	t.Helper()
	ctx := audit.WithAuditContext(context.Background())
	if err := audit.AuditContextFrom(ctx).Init(audit.RequestAuditConfig{Level: level}, nil); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// TestWritesAdmittedAsUpstreamsLoopbackRequests checks what admission sees
// of a create and a delete, and what it says: the options the API handlers
// pass (meta.k8s.io/v1 CreateOptions and DeleteOptions), the loopback user's
// groups, and audit annotations, which end up on the audit event of the
// request that made the write (an audited one only).
func TestWritesAdmittedAsUpstreamsLoopbackRequests(t *testing.T) {
	plugin := &recordingAdmission{}
	w := newBoundWriter(t, plugin)
	obj := &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: "10.96.0.10"},
		Spec:       networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: "web"}},
	}
	creating := auditedRequest(t, auditinternal.LevelMetadata)
	if _, err := w.Create(creating, obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	deleting := auditedRequest(t, auditinternal.LevelRequest)
	if err := w.Delete(deleting, obj.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	wantOptions := []runtime.Object{
		&metav1.CreateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "CreateOptions"}},
		&metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "DeleteOptions"}},
	}
	if !reflect.DeepEqual(plugin.options, wantOptions) {
		t.Errorf("admission saw options %+v, want %+v", plugin.options, wantOptions)
	}
	for _, groups := range plugin.groups {
		if !reflect.DeepEqual(groups, w.user.GetGroups()) {
			t.Errorf("admission saw groups %q, want the loopback user's %q", groups, w.user.GetGroups())
		}
	}
	for ctx, want := range map[context.Context]string{creating: "CREATE", deleting: "DELETE"} {
		if got, _ := audit.AuditContextFrom(ctx).GetEventAnnotation(annotationKey); got != want {
			t.Errorf("audit annotation %s of the %s = %q, want %q", annotationKey, want, got, want)
		}
	}

	// A request not audited gets nothing, and the write still goes through.
	unaudited := auditedRequest(t, auditinternal.LevelNone)
	if _, err := w.Create(unaudited, obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got := audit.AuditContextFrom(unaudited).GetEventAnnotations(); len(got) != 0 {
		t.Errorf("a request audited at level None got annotations %v", got)
	}
}

// countingAdmission counts, per operation, the mutating and validating
// admission calls and those that saw no old object.
type countingAdmission struct {
	mutating, validating, withoutOld map[admission.Operation]int
}

func (c *countingAdmission) Handles(admission.Operation) bool { return true }
func (c *countingAdmission) Admit(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	c.count(c.mutating, a)
	return nil
}
func (c *countingAdmission) Validate(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	c.count(c.validating, a)
	return nil
}
func (c *countingAdmission) count(calls map[admission.Operation]int, a admission.Attributes) {
	calls[a.GetOperation()]++
	if a.GetOldObject() == nil {
		c.withoutOld[a.GetOperation()]++
	}
}

// TestDeleteAdmittedOnceWithItsObject checks that an IPAddress delete reaches
// mutating and validating admission once each, with the object it deletes,
// as upstream's DELETE handler admits it: no admission call before the
// storage has the object.
func TestDeleteAdmittedOnceWithItsObject(t *testing.T) {
	plugin := &countingAdmission{mutating: map[admission.Operation]int{}, validating: map[admission.Operation]int{}, withoutOld: map[admission.Operation]int{}}
	w := newBoundWriter(t, plugin)
	obj := &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: "10.96.0.11"},
		Spec:       networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: "web"}},
	}
	if _, err := w.Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := w.Delete(context.Background(), obj.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if m, v, n := plugin.mutating[admission.Delete], plugin.validating[admission.Delete], plugin.withoutOld[admission.Delete]; m != 1 || v != 1 || n != 0 {
		t.Errorf("the delete was admitted %d times mutating and %d validating, %d of them without the object; want 1, 1, 0", m, v, n)
	}
}
