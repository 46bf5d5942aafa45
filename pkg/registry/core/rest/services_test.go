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
	"net/http"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic/registry"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
)

// fakeStore answers Get from a watch cache (ResourceVersion "0") and from etcd
// (any other read), which may disagree for a moment after a write.
type fakeStore struct {
	inCache, inEtcd bool
	etcdReads       int
}

func (f *fakeStore) get(_ context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	found := f.inCache
	if opts.ResourceVersion != "0" {
		f.etcdReads++
		found = f.inEtcd
	}
	if !found {
		return nil, apierrors.NewNotFound(api.Resource("services"), name)
	}
	return &api.Service{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
}

func TestExists(t *testing.T) {
	tests := []struct {
		name            string
		inCache, inEtcd bool
		want            bool
		wantEtcdReads   int
	}{
		{name: "new name: the cache answers alone", want: false, wantEtcdReads: 0},
		{name: "re-POST of a stored Service", inCache: true, inEtcd: true, want: true, wantEtcdReads: 1},
		// a create right after a delete that the watch cache has not seen yet
		{name: "deleted, cache behind", inCache: true, inEtcd: false, want: false, wantEtcdReads: 1},
		// created by another apiserver a moment ago: the create itself will
		// answer AlreadyExists from etcd, as upstream's does
		{name: "created, cache behind", inCache: false, inEtcd: true, want: false, wantEtcdReads: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &fakeStore{inCache: tc.inCache, inEtcd: tc.inEtcd}
			if got := exists(context.Background(), s.get, "svc"); got != tc.want {
				t.Errorf("exists = %t, want %t", got, tc.want)
			}
			if s.etcdReads != tc.wantEtcdReads {
				t.Errorf("%d consistent reads, want %d", s.etcdReads, tc.wantEtcdReads)
			}
		})
	}
}

func TestWrapServiceStoreNeedsBothHooks(t *testing.T) {
	begin := func(context.Context, runtime.Object, *metav1.CreateOptions) (registry.FinishFunc, error) {
		return nil, nil
	}
	store := &registry.Store{BeginCreate: begin}
	err := wrapServiceStore(store, nil)
	if err == nil || !strings.Contains(err.Error(), "BeginCreate and BeginUpdate") {
		t.Fatalf("wrapServiceStore without BeginUpdate = %v, want a start-up error naming both hooks", err)
	}
}

// TestCommitFailureIsUpstreamsInvalid checks the answer to a Service whose
// IPAddress create failed (refused by admission): upstream's allocator writes
// the IPAddress while it allocates, and its storage answers 422 Invalid on
// spec.clusterIPs, naming the address only when the Service asked for it.
// TestIPAddressRefusalIsUpstreams compares the whole answer with upstream's binary.
func TestCommitFailureIsUpstreamsInvalid(t *testing.T) {
	ipAddresses := schema.GroupResource{Group: "networking.k8s.io", Resource: "ipaddresses"}
	for _, tc := range []struct {
		name       string
		request    *api.Service
		allocated  []string
		failed     string
		wantValue  []string
		wantDetail string
	}{
		{name: "dynamic", request: &api.Service{}, allocated: []string{"10.96.0.5"}, failed: "10.96.0.5",
			wantValue: []string{""}, wantDetail: "failed to allocate IP: "},
		{name: "static", request: &api.Service{Spec: api.ServiceSpec{ClusterIPs: []string{"10.96.0.5"}}}, allocated: []string{"10.96.0.5"}, failed: "10.96.0.5",
			wantValue: []string{"10.96.0.5"}, wantDetail: "failed to allocate IP 10.96.0.5: "},
		{name: "static, clusterIP alone", request: &api.Service{Spec: api.ServiceSpec{ClusterIP: "10.96.0.5"}}, allocated: []string{"10.96.0.5"}, failed: "10.96.0.5",
			wantValue: []string{"10.96.0.5"}, wantDetail: "failed to allocate IP 10.96.0.5: "},
		{name: "dual-stack, static IPv6 as spelled", request: &api.Service{Spec: api.ServiceSpec{ClusterIPs: []string{"10.96.0.5", "fd00:0::5"}}},
			allocated: []string{"10.96.0.5", "fd00::5"}, failed: "fd00::5",
			wantValue: []string{"10.96.0.5", "fd00:0::5"}, wantDetail: "failed to allocate IP fd00:0::5: "},
		{name: "dual-stack, dynamic secondary", request: &api.Service{Spec: api.ServiceSpec{ClusterIPs: []string{"10.96.0.5"}}},
			allocated: []string{"10.96.0.5", "fd00::7"}, failed: "fd00::7",
			wantValue: []string{"10.96.0.5", ""}, wantDetail: "failed to allocate IP: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allocated := tc.request.DeepCopy()
			allocated.Spec.ClusterIPs = tc.allocated
			requested := requestedClusterIPs(tc.request, allocated)
			if !reflect.DeepEqual(requested, tc.wantValue) {
				t.Errorf("requested ClusterIPs %q, want %q", requested, tc.wantValue)
			}
			refused := apierrors.NewForbidden(ipAddresses, tc.failed, errors.New("denied by policy"))
			var lost []string
			err := collisionOutcome("web", requested, &ipallocator.CommitError{IP: tc.failed, Service: "default/web", Err: refused}, &lost, 1)
			status, ok := err.(apierrors.APIStatus)
			if !ok {
				t.Fatalf("error %v is no API status", err)
			}
			s := status.Status()
			if s.Code != http.StatusUnprocessableEntity || s.Reason != metav1.StatusReasonInvalid || s.Details == nil || len(s.Details.Causes) != 1 {
				t.Fatalf("status %d %s %+v, want 422 Invalid with one cause", s.Code, s.Reason, s.Details)
			}
			cause := s.Details.Causes[0]
			if cause.Field != "spec.clusterIPs" || !strings.HasSuffix(cause.Message, ": "+tc.wantDetail+refused.Error()) {
				t.Errorf("cause %s: %q, want spec.clusterIPs: ...: %q", cause.Field, cause.Message, tc.wantDetail+refused.Error())
			}
			if !strings.HasPrefix(s.Message, `Service "web" is invalid: spec.clusterIPs: Invalid value: `) {
				t.Errorf("message %q is not upstream's for an invalid Service", s.Message)
			}
		})
	}
}
