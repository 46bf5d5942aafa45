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

package jointwrite_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"errors"
	"os"
	"slices"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/value"
	aestransformer "k8s.io/apiserver/pkg/storage/value/encrypt/aes"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/apis/networking"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"

	"github.com/netfork/netfork/pkg/registry/core/service/allocator/storage/storagetest"
	"github.com/netfork/netfork/pkg/registry/internal/jointwrite"
)

func TestMain(m *testing.M) {
	os.Exit(storagetest.Main(m))
}

// fixture is a Service storage and an IPAddress storage on one etcd, each
// wrapped as the apiserver wraps them, and raw stores under them, which read
// what was written as upstream's storage reads it.
type fixture struct {
	services   *jointwrite.ServiceStorage
	ipAdresses *jointwrite.PreparingStorage
	rawIPs     storage.Interface
	rawSvcs    storage.Interface
	etcd       *clientv3.Client
	servers    []string
	st         storagetest.Storage
}

// newFixture builds the fixture; ipTransformer, when set, is the
// encryption-at-rest transformer of ipaddresses (services have none).
func newFixture(t *testing.T, ipTransformer value.Transformer) *fixture {
	t.Helper()
	st := storagetest.New(t)
	svcOpts := restOptions(t, st, api.Resource("services"), &api.Service{}, "services/specs", nil)
	ipOpts := restOptions(t, st, networking.Resource("ipaddresses"), &networking.IPAddress{}, "ipaddresses", ipTransformer)
	newSvc, newSvcList := func() runtime.Object { return &api.Service{} }, func() runtime.Object { return &api.ServiceList{} }
	newIP, newIPList := func() runtime.Object { return &networking.IPAddress{} }, func() runtime.Object { return &networking.IPAddressList{} }
	rawSvcs := rawStorage(t, svcOpts, newSvc, newSvcList)
	rawIPs := rawStorage(t, ipOpts, newIP, newIPList)
	client, err := jointwrite.NewClient(svcOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	services, err := jointwrite.NewServiceStorage(jointwrite.Built{Storage: rawSvcs, Options: svcOpts, NewFunc: newSvc, NewListFunc: newSvcList}, client)
	if err != nil {
		t.Fatal(err)
	}
	ips, err := jointwrite.NewPreparingStorage(jointwrite.Built{Storage: rawIPs, Options: ipOpts, NewFunc: newIP, NewListFunc: newIPList})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{services: services, ipAdresses: ips, rawIPs: rawIPs, rawSvcs: rawSvcs, etcd: client.Client, servers: jointwrite.Servers(svcOpts), st: st}
}

func restOptions(t *testing.T, st storagetest.Storage, resource schema.GroupResource, example runtime.Object, prefix string, transformer value.Transformer) generic.RESTOptions {
	t.Helper()
	config, err := st.Factory.NewConfig(resource, example)
	if err != nil {
		t.Fatalf("storage config for %s: %v", resource, err)
	}
	if transformer != nil {
		config.Transformer = transformer
	}
	return generic.RESTOptions{StorageConfig: config, ResourcePrefix: prefix}
}

func rawStorage(t *testing.T, opts generic.RESTOptions, newFunc, newListFunc func() runtime.Object) storage.Interface {
	t.Helper()
	s, destroy, err := generic.NewRawStorage(opts.StorageConfig, newFunc, newListFunc, "/"+opts.ResourcePrefix)
	if err != nil {
		t.Fatalf("storage of %s: %v", opts.ResourcePrefix, err)
	}
	t.Cleanup(destroy)
	return s
}

func ipAddress(name string) *networking.IPAddress {
	return &networking.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: "ip-uid"},
		Spec:       networking.IPAddressSpec{ParentRef: &networking.ParentReference{Resource: "services", Namespace: "default", Name: "a"}},
	}
}

func service(name string) *api.Service {
	return &api.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: "svc-uid"},
		Spec:       api.ServiceSpec{ClusterIP: "10.0.0.1", ClusterIPs: []string{"10.0.0.1"}, Type: api.ServiceTypeClusterIP},
	}
}

// prepare prepares the IPAddress name and holds it in a new slot for svc;
// the outcomes Done is told go to outcomes.
func (f *fixture) prepare(t *testing.T, name string, svc *api.Service, outcomes *[]jointwrite.Outcome, doneErr error) context.Context {
	t.Helper()
	ctx, slot := jointwrite.WithSlot(context.Background(), f.servers)
	if !slot.Accepts(f.servers) || slot.Accepts([]string{"https://elsewhere:2379"}) {
		t.Fatalf("a new slot must accept a write of its own etcd servers and only those")
	}
	f.hold(ctx, t, name, svc, outcomes, doneErr)
	return ctx
}

// hold prepares the IPAddress name and adds it to the slot of ctx for svc.
func (f *fixture) hold(ctx context.Context, t *testing.T, name string, svc *api.Service, outcomes *[]jointwrite.Outcome, doneErr error) {
	t.Helper()
	p := &jointwrite.Prepared{}
	out := &networking.IPAddress{}
	if err := f.ipAdresses.Create(jointwrite.WithPrepare(ctx, p), "/ipaddresses/"+name, ipAddress(name), out, 0); err != nil {
		t.Fatalf("preparing IPAddress %s: %v", name, err)
	}
	if out.Name != name || out.ResourceVersion != "" {
		t.Fatalf("prepared IPAddress came back as %q at resourceVersion %q, want %q without one", out.Name, out.ResourceVersion, name)
	}
	if p.Key != f.st.RawKey("/ipaddresses/"+name) {
		t.Fatalf("prepared key %q, want %q", p.Key, f.st.RawKey("/ipaddresses/"+name))
	}
	jointwrite.From(ctx).Hold(svc, &jointwrite.Write{Key: p.Key, Data: p.Data, Done: func(o jointwrite.Outcome) error {
		*outcomes = append(*outcomes, o)
		return doneErr
	}})
}

func (f *fixture) count(t *testing.T, key string) int64 {
	t.Helper()
	resp, err := f.etcd.Get(context.Background(), key, clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return resp.Count
}

func TestServiceAndIPAddressInOneTransaction(t *testing.T) {
	block, err := aes.NewCipher(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	ipTransformer, err := aestransformer.NewGCMTransformer(block)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, ipTransformer)
	var outcomes []jointwrite.Outcome
	svc := service("a")
	ctx := f.prepare(t, "10.0.0.1", svc, &outcomes, nil)
	if n := f.count(t, f.st.RawKey("/ipaddresses/10.0.0.1")); n != 0 {
		t.Fatal("preparing the IPAddress wrote it")
	}

	out := &api.Service{}
	if err := f.services.Create(ctx, "/services/specs/default/a", svc, out, 0); err != nil {
		t.Fatalf("joint create: %v", err)
	}
	if len(outcomes) != 1 || outcomes[0] != jointwrite.Written {
		t.Fatalf("Done was told %v, want [Written]", outcomes)
	}
	if out.ResourceVersion == "" || out.Name != "a" {
		t.Fatalf("created Service %q at resourceVersion %q", out.Name, out.ResourceVersion)
	}

	// Both objects read back through the upstream storage, at one revision.
	gotSvc, gotIP := &api.Service{}, &networking.IPAddress{}
	if err := f.rawSvcs.Get(context.Background(), "/services/specs/default/a", storage.GetOptions{}, gotSvc); err != nil {
		t.Fatalf("upstream's storage reading the Service: %v", err)
	}
	if err := f.rawIPs.Get(context.Background(), "/ipaddresses/10.0.0.1", storage.GetOptions{}, gotIP); err != nil {
		t.Fatalf("upstream's storage reading the IPAddress: %v", err)
	}
	if gotSvc.ResourceVersion != out.ResourceVersion || gotIP.ResourceVersion != out.ResourceVersion {
		t.Fatalf("Service at %s, IPAddress at %s, create returned %s: want one revision", gotSvc.ResourceVersion, gotIP.ResourceVersion, out.ResourceVersion)
	}
	if gotIP.Spec.ParentRef == nil || gotIP.Spec.ParentRef.Name != "a" || gotIP.UID != "ip-uid" {
		t.Fatalf("IPAddress read back as %+v", gotIP)
	}

	// The IPAddress is stored with its own transformer, the Service with its own (none).
	ipValue, svcValue := f.value(t, "/ipaddresses/10.0.0.1"), f.value(t, "/services/specs/default/a")
	if bytes.Contains(ipValue, []byte("10.0.0.1")) || bytes.HasPrefix(ipValue, []byte("k8s\x00")) {
		t.Errorf("the IPAddress is stored in clear: %q", ipValue)
	}
	if !bytes.Contains(svcValue, []byte("10.0.0.1")) {
		t.Errorf("the Service, which has no transformer, is not stored in clear: %q", svcValue)
	}
}

func TestAddressTakenWritesNothing(t *testing.T) {
	f := newFixture(t, nil)
	taken := ipAddress("10.0.0.1")
	if err := f.rawIPs.Create(context.Background(), "/ipaddresses/10.0.0.1", taken, &networking.IPAddress{}, 0); err != nil {
		t.Fatal(err)
	}
	var outcomes []jointwrite.Outcome
	collision := errors.New("collision")
	svc := service("a")
	ctx := f.prepare(t, "10.0.0.1", svc, &outcomes, collision)
	err := f.services.Create(ctx, "/services/specs/default/a", svc, &api.Service{}, 0)
	if !errors.Is(err, collision) {
		t.Fatalf("joint create over a taken address: %v, want Done's error", err)
	}
	if len(outcomes) != 1 || outcomes[0] != jointwrite.AddressTaken {
		t.Fatalf("Done was told %v, want [AddressTaken]", outcomes)
	}
	if err := f.rawSvcs.Get(context.Background(), "/services/specs/default/a", storage.GetOptions{}, &api.Service{}); !storage.IsNotFound(err) {
		t.Fatalf("the Service was written although its address was taken: %v", err)
	}
}

func TestServiceExistsWritesNothing(t *testing.T) {
	f := newFixture(t, nil)
	if err := f.rawSvcs.Create(context.Background(), "/services/specs/default/a", service("a"), &api.Service{}, 0); err != nil {
		t.Fatal(err)
	}
	var outcomes []jointwrite.Outcome
	svc := service("a")
	ctx := f.prepare(t, "10.0.0.2", svc, &outcomes, errors.New("Done's error must not be the create's"))
	err := f.services.Create(ctx, "/services/specs/default/a", svc, &api.Service{}, 0)
	if !storage.IsExist(err) {
		t.Fatalf("joint create of an existing Service: %v, want the storage's key-exists error", err)
	}
	if len(outcomes) != 1 || outcomes[0] != jointwrite.NotWritten {
		t.Fatalf("Done was told %v, want [NotWritten]", outcomes)
	}
	if err := f.rawIPs.Get(context.Background(), "/ipaddresses/10.0.0.2", storage.GetOptions{}, &networking.IPAddress{}); !storage.IsNotFound(err) {
		t.Fatalf("the IPAddress was written although the Service existed: %v", err)
	}
}

func TestCreateWithoutHeldWriteIsPlain(t *testing.T) {
	f := newFixture(t, nil)
	var outcomes []jointwrite.Outcome
	held := service("a")
	ctx := f.prepare(t, "10.0.0.3", held, &outcomes, nil)

	// Another object than the one the write is held for is created alone.
	other := service("b")
	out := &api.Service{}
	if err := f.services.Create(ctx, "/services/specs/default/b", other, out, 0); err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 0 {
		t.Fatalf("Done was told %v for another Service's create", outcomes)
	}
	if n := f.count(t, f.st.RawKey("/ipaddresses/10.0.0.3")); n != 0 {
		t.Fatalf("another Service's create wrote the held IPAddress")
	}
	if n := f.count(t, f.st.RawKey("/services/specs/default/b")); n != 1 {
		t.Fatal("Service b not written")
	}
	// And without a slot at all, too.
	if err := f.services.Create(context.Background(), "/services/specs/default/c", service("c"), &api.Service{}, 0); err != nil {
		t.Fatal(err)
	}
	// The held write is still there for its own Service.
	if err := f.services.Create(ctx, "/services/specs/default/a", held, &api.Service{}, 0); err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 1 || outcomes[0] != jointwrite.Written {
		t.Fatalf("Done was told %v, want [Written]", outcomes)
	}
}

// value is the raw value of the storage key key.
func (f *fixture) value(t *testing.T, key string) []byte {
	t.Helper()
	resp, err := f.etcd.Get(context.Background(), f.st.RawKey(key))
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("reading %s: %v (%d keys)", f.st.RawKey(key), err, len(resp.Kvs))
	}
	return resp.Kvs[0].Value
}

func TestSecondAddressWrittenAloneFirst(t *testing.T) {
	f := newFixture(t, nil)
	var joint, alone []jointwrite.Outcome
	svc := service("a")
	ctx := f.prepare(t, "10.0.0.1", svc, &joint, nil)
	f.hold(ctx, t, "fd00::1", svc, &alone, nil)
	out := &api.Service{}
	if err := f.services.Create(ctx, "/services/specs/default/a", svc, out, 0); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(joint, []jointwrite.Outcome{jointwrite.Written}) || !slices.Equal(alone, []jointwrite.Outcome{jointwrite.Written}) {
		t.Fatalf("Done was told %v and %v, want [Written] each", joint, alone)
	}
	first, second := &networking.IPAddress{}, &networking.IPAddress{}
	if err := f.rawIPs.Get(context.Background(), "/ipaddresses/10.0.0.1", storage.GetOptions{}, first); err != nil {
		t.Fatal(err)
	}
	if err := f.rawIPs.Get(context.Background(), "/ipaddresses/fd00::1", storage.GetOptions{}, second); err != nil {
		t.Fatal(err)
	}
	if first.ResourceVersion != out.ResourceVersion || second.ResourceVersion == out.ResourceVersion {
		t.Fatalf("Service at %s, joint IPAddress at %s, other at %s: want the joint one, and only it, at the Service's", out.ResourceVersion, first.ResourceVersion, second.ResourceVersion)
	}
}

func TestSecondAddressTakenWritesNothing(t *testing.T) {
	f := newFixture(t, nil)
	if err := f.rawIPs.Create(context.Background(), "/ipaddresses/fd00::1", ipAddress("fd00::1"), &networking.IPAddress{}, 0); err != nil {
		t.Fatal(err)
	}
	var joint, alone []jointwrite.Outcome
	collision := errors.New("collision")
	svc := service("a")
	ctx := f.prepare(t, "10.0.0.1", svc, &joint, nil)
	f.hold(ctx, t, "fd00::1", svc, &alone, collision)
	if err := f.services.Create(ctx, "/services/specs/default/a", svc, &api.Service{}, 0); !errors.Is(err, collision) {
		t.Fatalf("create over a taken second address: %v, want its Done's error", err)
	}
	if !slices.Equal(joint, []jointwrite.Outcome{jointwrite.NotWritten}) || !slices.Equal(alone, []jointwrite.Outcome{jointwrite.AddressTaken}) {
		t.Fatalf("Done was told %v and %v, want [NotWritten] and [AddressTaken]", joint, alone)
	}
	if n := f.count(t, f.st.RawKey("/ipaddresses/10.0.0.1")) + f.count(t, f.st.RawKey("/services/specs/default/a")); n != 0 {
		t.Fatalf("%d keys written after the second address was found taken", n)
	}
}

// created jointly creates Service name with the IPAddress ip.
func (f *fixture) created(t *testing.T, name, ip string) {
	t.Helper()
	var outcomes []jointwrite.Outcome
	svc := service(name)
	ctx := f.prepare(t, ip, svc, &outcomes, nil)
	out := &api.Service{}
	if err := f.services.Create(ctx, "/services/specs/default/"+name, svc, out, 0); err != nil {
		t.Fatal(err)
	}
}

// deleting is a context whose Service deletes take along the delete of
// IPAddress ip that f.preparer prepares.
func (f *fixture) deleting(t *testing.T, ip string, prepared, done *int) context.Context {
	ctx, _ := jointwrite.WithDeletes(context.Background(), f.servers, f.preparer(t, ip, prepared, done))
	return ctx
}

// preparer prepares the delete of IPAddress ip as the Writer prepares it,
// counting into prepared the preparations and into done the Done calls.
func (f *fixture) preparer(t *testing.T, ip string, prepared, done *int) jointwrite.DeletePreparer {
	return func(ctx context.Context, _ *jointwrite.Slot, _ runtime.Object) []*jointwrite.Delete {
		*prepared++
		cached := &networking.IPAddress{}
		if err := f.rawIPs.Get(ctx, "/ipaddresses/"+ip, storage.GetOptions{}, cached); err != nil {
			return nil
		}
		p := &jointwrite.Prepared{}
		if err := f.ipAdresses.Delete(jointwrite.WithPrepare(ctx, p), "/ipaddresses/"+ip, &networking.IPAddress{}, &storage.Preconditions{},
			storage.ValidateAllObjectFunc, cached, storage.DeleteOptions{}); err != nil {
			t.Errorf("preparing the delete of %s: %v", ip, err)
			return nil
		}
		if n := f.count(t, p.Key); n != 1 {
			t.Errorf("preparing the delete of %s deleted it", ip)
		}
		return []*jointwrite.Delete{{Key: p.Key, Revision: p.Revision, Done: func(o jointwrite.Outcome) {
			if o == jointwrite.Written {
				*done++
			}
		}}}
	}
}

func (f *fixture) revision(t *testing.T) int64 {
	t.Helper()
	resp, err := f.etcd.Get(context.Background(), "/nothing-here")
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// deletedTogether fails unless Service a and its IPAddress 10.0.0.1 are both
// gone, their delete prepared once and told Written once.
func (f *fixture) deletedTogether(t *testing.T, prepared, done int) {
	t.Helper()
	if n := f.count(t, f.st.RawKey("/ipaddresses/10.0.0.1")) + f.count(t, f.st.RawKey("/services/specs/default/a")); n != 0 {
		t.Fatalf("%d of the Service and its IPAddress left", n)
	}
	if prepared != 1 || done != 1 {
		t.Fatalf("prepared %d times, told Written %d times; want 1 and 1", prepared, done)
	}
}

func TestServiceDeleteTakesItsIPAddressAlong(t *testing.T) {
	f := newFixture(t, nil)
	f.created(t, "a", "10.0.0.1")
	var prepared, done int
	ctx := f.deleting(t, "10.0.0.1", &prepared, &done)
	before := f.revision(t)
	if err := f.services.Delete(ctx, "/services/specs/default/a", &api.Service{}, &storage.Preconditions{}, storage.ValidateAllObjectFunc, nil, storage.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if after := f.revision(t); after != before+1 {
		t.Errorf("the delete took etcd from revision %d to %d, want one transaction", before, after)
	}
	f.deletedTogether(t, prepared, done)
}

func TestServiceDeleteLeavesAChangedIPAddress(t *testing.T) {
	f := newFixture(t, nil)
	f.created(t, "a", "10.0.0.1")
	var prepared, done int
	// Prepare at the current revision, then change the IPAddress before the Service is deleted.
	prepare := f.preparer(t, "10.0.0.1", &prepared, &done)
	ctx, _ := jointwrite.WithDeletes(context.Background(), f.servers, func(ctx context.Context, slot *jointwrite.Slot, obj runtime.Object) []*jointwrite.Delete {
		deletes := prepare(ctx, slot, obj)
		err := f.rawIPs.GuaranteedUpdate(ctx, "/ipaddresses/10.0.0.1", &networking.IPAddress{}, false, nil, func(input runtime.Object, _ storage.ResponseMeta) (runtime.Object, *uint64, error) {
			ip := input.(*networking.IPAddress)
			ip.Labels = map[string]string{"changed": "true"}
			return ip, nil, nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return deletes
	})
	if err := f.services.Delete(ctx, "/services/specs/default/a", &api.Service{}, &storage.Preconditions{}, storage.ValidateAllObjectFunc, nil, storage.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := f.count(t, f.st.RawKey("/services/specs/default/a")); n != 0 {
		t.Fatal("the Service was not deleted")
	}
	if n := f.count(t, f.st.RawKey("/ipaddresses/10.0.0.1")); n != 1 {
		t.Fatal("an IPAddress changed since its delete was prepared was deleted")
	}
	if done != 0 {
		t.Fatalf("Done told Written %d times for a delete that did not happen", done)
	}
}

func TestRefusedServiceDeletePreparesNothing(t *testing.T) {
	f := newFixture(t, nil)
	f.created(t, "a", "10.0.0.1")
	var prepared, done int
	ctx := f.deleting(t, "10.0.0.1", &prepared, &done)
	refused := errors.New("refused by admission")
	err := f.services.Delete(ctx, "/services/specs/default/a", &api.Service{}, &storage.Preconditions{},
		func(context.Context, runtime.Object) error { return refused }, nil, storage.DeleteOptions{})
	if !errors.Is(err, refused) {
		t.Fatalf("refused delete: %v", err)
	}
	if prepared != 0 || done != 0 {
		t.Fatalf("a refused Service delete prepared %d IPAddress deletes", prepared)
	}
	if n := f.count(t, f.st.RawKey("/ipaddresses/10.0.0.1")) + f.count(t, f.st.RawKey("/services/specs/default/a")); n != 2 {
		t.Fatalf("a refused delete deleted %d keys", 2-n)
	}
}

// TestServiceDeleteOutlivesItsClient checks that a client that leaves while the
// IPAddress delete is prepared (its admission: a slow webhook) does not stop a
// Service delete that passed its own checks: upstream has deleted the Service
// by then and deletes the IPAddress on a context of its own.
func TestServiceDeleteOutlivesItsClient(t *testing.T) {
	f := newFixture(t, nil)
	f.created(t, "a", "10.0.0.1")
	var prepared, done int
	prepare := f.preparer(t, "10.0.0.1", &prepared, &done)
	ctx, leave := context.WithCancel(context.Background())
	defer leave()
	ctx, _ = jointwrite.WithDeletes(ctx, f.servers, func(ctx context.Context, slot *jointwrite.Slot, obj runtime.Object) []*jointwrite.Delete {
		leave()
		if err := ctx.Err(); err != nil {
			t.Errorf("the IPAddress delete is prepared on the client's context: %v", err)
		}
		return prepare(ctx, slot, obj)
	})
	if err := f.services.Delete(ctx, "/services/specs/default/a", &api.Service{}, &storage.Preconditions{}, storage.ValidateAllObjectFunc, nil, storage.DeleteOptions{}); err != nil {
		t.Fatalf("a Service delete whose client left after its checks: %v", err)
	}
	f.deletedTogether(t, prepared, done)
}

// TestServiceDeleteEndsWithItsClientBeforeItsChecks checks that a client that
// leaves before the Service passed its own checks (its admission) ends the
// delete, as upstream's does.
func TestServiceDeleteEndsWithItsClientBeforeItsChecks(t *testing.T) {
	f := newFixture(t, nil)
	f.created(t, "b", "10.0.0.2")
	var prepared, done int
	ctx, leave := context.WithCancel(context.Background())
	ctx, _ = jointwrite.WithDeletes(ctx, f.servers, f.preparer(t, "10.0.0.2", &prepared, &done))
	err := f.services.Delete(ctx, "/services/specs/default/b", &api.Service{}, &storage.Preconditions{},
		func(context.Context, runtime.Object) error { leave(); return nil }, nil, storage.DeleteOptions{})
	if err == nil {
		t.Fatal("a Service delete whose client left during its checks succeeded")
	}
	if prepared != 0 {
		t.Errorf("the IPAddress delete was prepared %d times after the client left during the Service's checks", prepared)
	}
	if n := f.count(t, f.st.RawKey("/ipaddresses/10.0.0.2")) + f.count(t, f.st.RawKey("/services/specs/default/b")); n != 2 {
		t.Fatalf("a delete its client left during the Service's checks deleted %d keys", 2-n)
	}
}
