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

package controller

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/pkg/registry/core/service/internal/registrytest"
	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator/clusterip"
	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
)

func TestRepairIPAddressPass(t *testing.T) {
	const hour = time.Hour
	tests := []struct {
		name string
		objs []runtime.Object

		want        map[string]string
		wantDeletes int
		wantEvents  []string
		wantErrors  map[string]float64
	}{
		{
			name: "IPAddresses made by upstream 1.37's allocator are accepted",
			objs: []runtime.Object{
				withUID(newService("a", "10.0.0.10", "fd00::10")),
				newIPAddressFor("10.0.0.10", "services", "a", hour),
				newIPAddressFor("fd00::10", "services", "a", hour),
			},
			want: map[string]string{"10.0.0.10": ipAddressOf("10.0.0.10", "a"), "fd00::10": ipAddressOf("fd00::10", "a")},
		},
		{
			name: "ClusterIPs without IPAddress get one, named canonically (migration from the bitmap)",
			objs: []runtime.Object{withUID(newService("a", "10.0.0.10", "fd00:0::0a"))},
			want: map[string]string{"10.0.0.10": ipAddressOf("10.0.0.10", "a"), "fd00::a": ipAddressOf("fd00::a", "a")},
			wantEvents: []string{
				"Service default/a ClusterIPNotAllocated: Cluster IP [IPv4]: 10.0.0.10 is not allocated; repairing",
				"Service default/a ClusterIPNotAllocated: Cluster IP [IPv6]: fd00::a is not allocated; repairing",
			},
			wantErrors: map[string]float64{errorTypeRepair: 2},
		},
		{
			name: "ClusterIPs in no ServiceCIDR are reported, not allocated",
			objs: []runtime.Object{
				withUID(newService("a", "10.1.0.10")),
				// a ServiceCIDR never hands out its network address
				withUID(newService("b", "10.0.0.0")),
			},
			want: map[string]string{},
			wantEvents: []string{
				"Service default/a ClusterIPOutOfRange: Cluster IP [IPv4]: 10.1.0.10 is not within any configured Service CIDR; please recreate service",
				"Service default/b ClusterIPOutOfRange: Cluster IP [IPv4]: 10.0.0.0 is not within any configured Service CIDR; please recreate service",
			},
			wantErrors: map[string]float64{errorTypeOutOfRange: 2},
		},
		{
			name:       "a ClusterIP that is not an IP is reported",
			objs:       []runtime.Object{withUID(newService("a", "not-an-ip"))},
			want:       map[string]string{},
			wantEvents: []string{"Service default/a ClusterIPNotValid: Cluster IP not-an-ip is not a valid IP; please recreate Service"},
			wantErrors: map[string]float64{errorTypeInvalid: 1},
		},
		{
			name: "two Services with one ClusterIP: the second is reported",
			objs: []runtime.Object{
				withUID(newService("a", "10.0.0.10")),
				withUID(newService("b", "10.0.0.10")),
				newIPAddressFor("10.0.0.10", "services", "a", hour),
			},
			want:       map[string]string{"10.0.0.10": ipAddressOf("10.0.0.10", "a")},
			wantEvents: []string{"Service default/b ClusterIPAlreadyAllocated: Cluster IP [IPv4]:10.0.0.10 was assigned to multiple services; please recreate service"},
			wantErrors: map[string]float64{errorTypeDuplicate: 1},
		},
		{
			name: "an IPAddress pointing at a Service that does not hold it is given to the one that does",
			objs: []runtime.Object{
				withUID(newService("a", "10.0.0.10")),
				newIPAddressFor("10.0.0.10", "services", "gone", 2*time.Minute),
			},
			want:        map[string]string{"10.0.0.10": ipAddressOf("10.0.0.10", "a")},
			wantDeletes: 1,
			wantEvents:  []string{"Service default/a ClusterIPNotAllocated: the ClusterIP [IPv4]: 10.0.0.10 for Service default/a has a wrong reference; repairing"},
			wantErrors:  map[string]float64{errorTypeRepair: 1},
		},
		{
			name: "a young IPAddress pointing at another Service is left for the grace: that Service may be being created",
			objs: []runtime.Object{
				withUID(newService("a", "10.0.0.10")),
				newIPAddressFor("10.0.0.10", "services", "creating", 10*time.Second),
			},
			want: map[string]string{"10.0.0.10": "services default/creating IPv4 ipallocator.k8s.io"},
		},
		{
			name: "an unlabelled IPAddress of another resource holding a Service's ClusterIP is taken over",
			objs: []runtime.Object{
				withUID(newService("a", "10.0.0.10")),
				withLabels(newIPAddressFor("10.0.0.10", "gateways", "gw", hour), nil),
			},
			want:        map[string]string{"10.0.0.10": ipAddressOf("10.0.0.10", "a")},
			wantDeletes: 1,
			wantEvents:  []string{"Service default/a ClusterIPNotAllocated: the ClusterIP [IPv4]: 10.0.0.10 for Service default/a has a wrong reference; repairing"},
			wantErrors:  map[string]float64{errorTypeRepair: 1},
		},
		{
			name: "another manager's IPAddress holding a Service's ClusterIP is never touched",
			objs: []runtime.Object{
				withUID(newService("a", "10.0.0.10")),
				withLabels(newIPAddressFor("10.0.0.10", "gateways", "gw", hour), map[string]string{networkingv1.LabelManagedBy: "gateway.example.com"}),
			},
			want:       map[string]string{"10.0.0.10": "gateways default/gw  gateway.example.com"},
			wantEvents: []string{"Service default/a ClusterIPAlreadyAllocated: Cluster IP [IPv4]:10.0.0.10 was assigned to multiple services; please recreate service"},
			wantErrors: map[string]float64{errorTypeDuplicate: 1},
		},
		{
			name: "wrong labels on the Service's IPAddress are fixed in place",
			objs: []runtime.Object{
				withUID(newService("a", "10.0.0.10", "fd00::10")),
				withLabels(newIPAddressFor("10.0.0.10", "services", "a", hour), map[string]string{networkingv1.LabelIPAddressFamily: "IPv6"}),
				withLabels(newIPAddressFor("fd00::10", "services", "a", hour), map[string]string{"team": "x"}),
			},
			want: map[string]string{"10.0.0.10": ipAddressOf("10.0.0.10", "a"), "fd00::10": ipAddressOf("fd00::10", "a")},
		},
		{
			name: "another manager's IPAddress for the Service keeps its labels",
			objs: []runtime.Object{
				withUID(newService("a", "10.0.0.10")),
				withLabels(newIPAddressFor("10.0.0.10", "services", "a", hour), map[string]string{networkingv1.LabelManagedBy: "other"}),
			},
			want: map[string]string{"10.0.0.10": "services default/a  other"},
		},
		{
			name: "orphaned IPAddresses are not deleted on the pass that first sees them",
			objs: []runtime.Object{
				newIPAddressFor("10.0.0.20", "services", "gone", hour),
				withLabels(newIPAddressFor("10.0.0.21", "services", "gone", hour), nil),
				withLabels(newIPAddressFor("10.0.0.22", "gateways", "gw", hour), map[string]string{networkingv1.LabelManagedBy: "gateway.example.com"}),
			},
			want: map[string]string{
				"10.0.0.20": ipAddressOf("10.0.0.20", "gone"),
				"10.0.0.21": "services default/gone  ",
				"10.0.0.22": "gateways default/gw  gateway.example.com",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newIPFixture(t, append(defaultCIDRs(), tc.objs...)...)

			if err := f.r.syncAll(context.Background()); err != nil {
				t.Fatalf("syncAll: %v", err)
			}

			if got := f.ipAddresses(t); !maps.Equal(got, tc.want) {
				t.Errorf("IPAddresses:\n got %v\nwant %v", got, tc.want)
			}
			if got := countActions(f, "delete", "ipaddresses"); got != tc.wantDeletes {
				t.Errorf("IPAddress deletes = %d, want %d", got, tc.wantDeletes)
			}
			checkReported(t, f, tc.wantEvents, tc.wantErrors)
			if got := reconcileErrors(t); got != 0 {
				t.Errorf("reconcile_errors_total = %v, want 0", got)
			}
		})
	}
}

func TestRepairIPAddressOrphanGrace(t *testing.T) {
	const ip = "10.0.0.20"
	tests := []struct {
		name      string
		objs      []runtime.Object
		wantEvent string
	}{
		{
			name:      "no Service",
			objs:      []runtime.Object{newIPAddressFor(ip, "services", "gone", 10*time.Second)},
			wantEvent: "IPAddress 10.0.0.20 IPAddressNotAllocated: IPAddress: 10.0.0.20 for Service default/gone appears to have leaked: cleaning up",
		},
		{
			name: "its Service does not hold it",
			objs: []runtime.Object{
				withUID(newService("other", "10.0.0.30")),
				newIPAddressFor("10.0.0.30", "services", "other", time.Hour),
				newIPAddressFor(ip, "services", "other", 10*time.Second),
			},
			wantEvent: "IPAddress 10.0.0.20 IPAddressWrongReference: IPAddress: 10.0.0.20 for Service default/other has a wrong reference; cleaning up",
		},
		{
			name:      "no Service in its parentRef",
			objs:      []runtime.Object{newIPAddressFor(ip, "gateways", "gw", 10*time.Second)},
			wantEvent: "IPAddress 10.0.0.20 IPAddressNotAllocated: IPAddress 10.0.0.20 appears to have been modified, not referencing a Service &ParentReference{Group:,Resource:gateways,Namespace:default,Name:gw,}: cleaning up",
		},
	}
	// Each step moves the clock, then syncs the IPAddress once. It is created
	// 10s before the first step, so it is older than the grace at 50s; it is
	// kept until it has also been seen orphaned for the grace.
	steps := []struct {
		advance  time.Duration
		wantKept bool
	}{
		{advance: 0, wantKept: true},
		{advance: 30 * time.Second, wantKept: true},
		{advance: 25 * time.Second, wantKept: true},
		{advance: 6 * time.Second, wantKept: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := newIPFixture(t, append(defaultCIDRs(), tc.objs...)...)
			for i, s := range steps {
				f.clock.Step(s.advance)
				if err := f.r.syncIPAddress(ctx, ip); err != nil {
					t.Fatalf("step %d: syncIPAddress: %v", i, err)
				}
				_, kept := f.ipAddresses(t)[ip]
				if kept != s.wantKept {
					t.Fatalf("step %d (%s after the first): IPAddress kept = %v, want %v", i, f.clock.Since(testNow), kept, s.wantKept)
				}
				if s.wantKept && len(f.events.recorded()) > 0 {
					t.Fatalf("step %d: events %q before the grace ran out", i, f.events.recorded())
				}
			}
			checkReported(t, f, []string{tc.wantEvent}, map[string]float64{errorTypeLeak: 1})
			if got := f.r.orphans.len(); got != 0 {
				t.Errorf("%d orphans still tracked after the delete", got)
			}
		})
	}
}

func TestRepairIPAddressOrphanRaces(t *testing.T) {
	const ip = "10.0.0.20"
	ctx := context.Background()
	tests := []struct {
		name string
		objs []runtime.Object
		// during changes the API (and the caches if it says so) during the grace.
		during   func(t *testing.T, f *ipFixture)
		wantKept bool
	}{
		{
			name: "the Service storage releases it during the grace",
			objs: []runtime.Object{newIPAddressFor(ip, "services", "deleted", time.Hour)},
			during: func(t *testing.T, f *ipFixture) {
				if err := f.client.NetworkingV1().IPAddresses().Delete(ctx, ip, metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
				if err := f.index.ReflectorStore().Delete(newIPAddressFor(ip, "services", "deleted", time.Hour)); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "its Service exists in the API but not yet in the cache",
			objs: []runtime.Object{newIPAddressFor(ip, "services", "late", time.Hour)},
			during: func(t *testing.T, f *ipFixture) {
				if _, err := f.client.CoreV1().Services("default").Create(ctx, withUID(newService("late", ip)), metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			},
			wantKept: true,
		},
		{
			name: "it was replaced under the same name",
			objs: []runtime.Object{newIPAddressFor(ip, "services", "gone", time.Hour)},
			during: func(t *testing.T, f *ipFixture) {
				replaced := newIPAddressFor(ip, "services", "gone", 0)
				replaced.UID = "uid-new"
				if err := f.client.Tracker().Update(networkingv1.SchemeGroupVersion.WithResource("ipaddresses"), replaced, ""); err != nil {
					t.Fatal(err)
				}
			},
			wantKept: true,
		},
		{
			name:     "another manager's IPAddress without a Service",
			objs:     []runtime.Object{withLabels(newIPAddressFor(ip, "services", "gone", time.Hour), map[string]string{networkingv1.LabelManagedBy: "other"})},
			wantKept: true,
		},
		{
			name:     "an unlabelled IPAddress without a Service",
			objs:     []runtime.Object{withLabels(newIPAddressFor(ip, "services", "gone", time.Hour), nil)},
			wantKept: true,
		},
		{
			name:     "a Service holds its address, though it points at another",
			objs:     []runtime.Object{withUID(newService("holder", ip)), newIPAddressFor(ip, "services", "gone", time.Hour)},
			wantKept: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newIPFixture(t, append(defaultCIDRs(), tc.objs...)...)
			if err := f.r.syncIPAddress(ctx, ip); err != nil {
				t.Fatalf("first sync: %v", err)
			}
			if tc.during != nil {
				tc.during(t, f)
			}
			f.clock.Step(DefaultOrphanGracePeriod + time.Second)
			if err := f.r.syncIPAddress(ctx, ip); err != nil {
				t.Fatalf("sync after the grace: %v", err)
			}

			if _, kept := f.ipAddresses(t)[ip]; kept != tc.wantKept {
				t.Errorf("IPAddress kept = %v, want %v", kept, tc.wantKept)
			}
			if got := countActions(f, "delete", "ipaddresses"); got != 0 && tc.wantKept {
				t.Errorf("%d IPAddress deletes, want none", got)
			}
			checkReported(t, f, nil, map[string]float64{})
		})
	}
}

func TestRepairIPAddressServiceRaces(t *testing.T) {
	const ip = "10.0.0.10"
	ctx := context.Background()
	svc := func() *corev1.Service { return withUID(newService("a", ip)) }
	tests := []struct {
		name string
		// cached and api are what the caches and the API hold besides the ServiceCIDRs.
		cached, api []runtime.Object
		// createErr, if set, is what a create of the IPAddress answers, after
		// putting winner in the API.
		createErr  error
		winner     *networkingv1.IPAddress
		want       map[string]string
		wantEvents []string
		wantErrors map[string]float64
	}{
		{
			name:   "the Service was deleted and its address released; the caches have not seen either",
			cached: []runtime.Object{svc()},
			want:   map[string]string{},
		},
		{
			name:   "the Service dropped its ClusterIP (now ExternalName); the cache still has it",
			cached: []runtime.Object{svc()},
			api: []runtime.Object{&corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a", UID: "uid-a"},
				Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.com"},
			}},
			want: map[string]string{},
		},
		{
			name:   "the Service was recreated under its name",
			cached: []runtime.Object{svc()},
			api: []runtime.Object{func() *corev1.Service {
				s := svc()
				s.UID = "uid-recreated"
				return s
			}()},
			want: map[string]string{},
		},
		{
			name:   "the IPAddress exists but is not cached yet",
			cached: []runtime.Object{svc()},
			api:    []runtime.Object{svc(), newIPAddressFor(ip, "services", "a", 0)},
			want:   map[string]string{ip: ipAddressOf(ip, "a")},
		},
		{
			name:      "the create loses to an allocator creating the Service's own IPAddress",
			cached:    []runtime.Object{svc()},
			api:       []runtime.Object{svc()},
			createErr: apierrors.NewAlreadyExists(networkingv1.Resource("ipaddresses"), ip),
			winner:    newIPAddressFor(ip, "services", "a", 0),
			want:      map[string]string{ip: ipAddressOf(ip, "a")},
		},
		{
			name:      "the create loses to another Service holding the same address",
			cached:    []runtime.Object{svc(), withUID(newService("b", ip))},
			api:       []runtime.Object{svc(), withUID(newService("b", ip))},
			createErr: apierrors.NewAlreadyExists(networkingv1.Resource("ipaddresses"), ip),
			winner:    newIPAddressFor(ip, "services", "b", 0),
			want:      map[string]string{ip: ipAddressOf(ip, "b")},
			wantEvents: []string{
				"Service default/a ClusterIPAlreadyAllocated: Cluster IP [IPv4]:10.0.0.10 was assigned to multiple services; please recreate service",
			},
			wantErrors: map[string]float64{errorTypeDuplicate: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newIPFixtureWithoutCaches(t, append(defaultCIDRs(), tc.api...))
			for _, obj := range append(defaultCIDRs(), tc.cached...) {
				f.cache(t, obj)
			}
			if tc.createErr != nil {
				f.client.PrependReactor("create", "ipaddresses", func(k8stesting.Action) (bool, runtime.Object, error) {
					if err := f.client.Tracker().Add(tc.winner); err != nil {
						t.Errorf("adding the winner: %v", err)
					}
					return true, nil, tc.createErr
				})
			}

			if err := f.r.syncService(ctx, "default/a"); err != nil {
				t.Fatalf("syncService: %v", err)
			}

			if got := f.ipAddresses(t); !maps.Equal(got, tc.want) {
				t.Errorf("IPAddresses:\n got %v\nwant %v", got, tc.want)
			}
			checkReported(t, f, tc.wantEvents, tc.wantErrors)
		})
	}
}

func TestRepairIPAddressUnknownError(t *testing.T) {
	f := newIPFixture(t, append(defaultCIDRs(), withUID(newService("a", "10.0.0.10")))...)
	f.client.PrependReactor("get", "ipaddresses", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInternalError(errors.New("etcd timeout"))
	})

	if err := f.r.syncService(context.Background(), "default/a"); err == nil {
		t.Fatal("syncService succeeded although the IPAddress could not be read")
	}
	checkReported(t, f,
		[]string{"Service default/a UnknownError: Unable to allocate ClusterIP [IPv4]: 10.0.0.10 due to an unknown error"},
		map[string]float64{errorTypeUnknown: 1})
	if got := countActions(f, "create", "ipaddresses"); got != 0 {
		t.Errorf("%d IPAddress creates, want none while its state is unknown", got)
	}
}

// A Service whose IPAddress the cache lacks is checked against the API as of
// the Service's resourceVersion, which the apiserver serves from its watch
// cache, and against etcd only when that cache cannot catch up.
func TestRepairIPAddressReadsSinceServiceResourceVersion(t *testing.T) {
	tooLarge := storage.NewTooLargeResourceVersionError(42, 41, 1)
	tests := []struct {
		name string
		// answer answers the read with a resourceVersion; nil lets the fake API answer.
		answer  error
		wantRVs []string
	}{
		{name: "served since the Service's write", wantRVs: []string{"42"}},
		{name: "cache behind: read from etcd", answer: tooLarge, wantRVs: []string{"42", ""}},
		{name: "any other error is not retried from etcd", answer: apierrors.NewInternalError(errors.New("boom")), wantRVs: []string{"42"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := withUID(newService("a", "10.0.0.10"))
			svc.ResourceVersion = "42"
			f := newIPFixture(t, append(defaultCIDRs(), svc)...)
			var rvs []string
			f.client.PrependReactor("get", "ipaddresses", func(a k8stesting.Action) (bool, runtime.Object, error) {
				rv := a.(k8stesting.GetActionImpl).GetOptions.ResourceVersion
				rvs = append(rvs, rv)
				if rv != "" && tc.answer != nil {
					return true, nil, tc.answer
				}
				return false, nil, nil
			})

			err := f.r.syncService(context.Background(), "default/a")

			if !slices.Equal(rvs, tc.wantRVs) {
				t.Errorf("IPAddress reads at resourceVersions %q, want %q", rvs, tc.wantRVs)
			}
			_, created := f.ipAddresses(t)["10.0.0.10"]
			if wantCreated := !apierrors.IsInternalError(tc.answer); created != wantCreated || (err == nil) != wantCreated {
				t.Errorf("IPAddress created = %v, syncService error %v; want created = %v", created, err, wantCreated)
			}
		})
	}
}

func TestRepairIPAddressFirstPassRetries(t *testing.T) {
	forbidden := apierrors.NewForbidden(networkingv1.Resource("ipaddresses"), "10.0.0.10",
		errors.New("not yet ready to handle request"))
	invalid := apierrors.NewInvalid(networkingv1.SchemeGroupVersion.WithKind("IPAddress").GroupKind(), "10.0.0.10",
		field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), "10.0.0.10", "rejected by a webhook")})
	tests := []struct {
		name string
		// createErrs answer the IPAddress creates in order; the last one repeats when forever is set.
		createErrs      []error
		forever         bool
		wantCreated     bool
		wantFirstPasses float64
	}{
		{name: "forbidden while the apiserver starts (#136288)", createErrs: []error{forbidden, forbidden, forbidden}, wantCreated: true, wantFirstPasses: 3},
		{name: "unavailable", createErrs: []error{apierrors.NewServiceUnavailable("etcd is starting")}, wantCreated: true, wantFirstPasses: 1},
		{name: "rejected for good: does not hold up readiness", createErrs: []error{invalid}, forever: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newIPFixtureWithoutCaches(t, append(defaultCIDRs(), withUID(newService("a", "10.0.0.10"))))
			var creates atomic.Int32
			f.client.PrependReactor("create", "ipaddresses", func(k8stesting.Action) (bool, runtime.Object, error) {
				n := int(creates.Add(1))
				if n <= len(tc.createErrs) {
					return true, nil, tc.createErrs[n-1]
				}
				if tc.forever {
					return true, nil, tc.createErrs[len(tc.createErrs)-1]
				}
				return false, nil, nil
			})
			f.start(t)

			registrytest.RunFirstPass(t, f.r)

			if _, created := f.ipAddresses(t)["10.0.0.10"]; created != tc.wantCreated {
				t.Errorf("IPAddress created = %v, want %v", created, tc.wantCreated)
			}
			if got := reconcileErrors(t); got < tc.wantFirstPasses || (tc.wantCreated && got != tc.wantFirstPasses) {
				t.Errorf("reconcile_errors_total = %v, want %v", got, tc.wantFirstPasses)
			}
			// The repair is reported once, when it is done, not at every attempt.
			var want []string
			if tc.wantCreated {
				want = []string{"Service default/a ClusterIPNotAllocated: Cluster IP [IPv4]: 10.0.0.10 is not allocated; repairing"}
			}
			if got := f.events.recorded(); !slices.Equal(got, want) {
				t.Errorf("events:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestRepairIPAddressWaitsForCaches(t *testing.T) {
	f := newIPFixtureWithoutCaches(t, defaultCIDRs())
	f.client.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(corev1.Resource("services"), "", errors.New("RBAC not loaded"))
	})
	// Count the loop's looks at the Service informer made once the other two had synced:
	// after two of them the loop has had its chance to start without the Services.
	var looks atomic.Int32
	for i, s := range f.r.synced {
		if s.name == "services" {
			synced := s.synced
			f.r.synced[i].synced = func() bool {
				if f.factory.Networking().V1().ServiceCIDRs().Informer().HasSynced() &&
					f.index.HasSynced() {
					looks.Add(1)
				}
				return synced()
			}
		}
	}
	f.start(t)

	if registrytest.RunUntilTried(t, f.r, func() bool { return looks.Load() >= 2 }) {
		t.Error("onFirstSuccess called although the Service informer never synced")
	}
}

// TestRepairIPAddressRunUntil runs the whole loop on the fake API: the first
// pass allocates before onFirstSuccess, an orphan goes once the grace has run
// on the loop's clock, a new ServiceCIDR brings a ClusterIP into range, and the
// events reach the API through events/v1.
func TestRepairIPAddressRunUntil(t *testing.T) {
	ctx := context.Background()
	f := startedIPFixture(t, append(defaultCIDRs(),
		withUID(newService("a", "10.0.0.10")),
		withUID(newService("c", "10.1.0.10")),
		newIPAddressFor("10.0.0.20", "services", "gone", time.Hour),
	)...)
	f.r.recorder = f.r.broadcaster.NewRecorder(scheme.Scheme, reportingController)

	stopCh := make(chan struct{})
	firstPass := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.r.RunUntil(func() { close(firstPass) }, stopCh)
	}()
	defer func() {
		close(stopCh)
		<-done
	}()
	select {
	case <-firstPass:
	case <-time.After(30 * time.Second):
		t.Fatal("the first pass did not succeed")
	}

	if _, ok := f.ipAddresses(t)["10.0.0.10"]; !ok {
		t.Fatal("IPAddress 10.0.0.10 of Service a missing after the first pass")
	}
	if _, ok := f.ipAddresses(t)["10.0.0.20"]; !ok {
		t.Fatal("orphan 10.0.0.20 deleted before its grace ran out")
	}

	poll(t, "the orphan's grace to be scheduled on the loop's clock", func() bool { return f.clock.HasWaiters() })
	f.clock.Step(DefaultOrphanGracePeriod + time.Second)
	poll(t, "the orphan to be deleted", func() bool {
		_, ok := f.ipAddresses(t)["10.0.0.20"]
		return !ok
	})

	if _, err := f.client.NetworkingV1().ServiceCIDRs().Create(ctx, newServiceCIDR("extra", "10.1.0.0/24"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "the ClusterIP of Service c to be allocated in the new ServiceCIDR", func() bool {
		_, ok := f.ipAddresses(t)["10.1.0.10"]
		return ok
	})

	want := []string{
		"Service/a ClusterIPNotAllocated ipallocator-repair-controller",
		"Service/c ClusterIPOutOfRange ipallocator-repair-controller",
		"Service/c ClusterIPNotAllocated ipallocator-repair-controller",
		"IPAddress/10.0.0.20 IPAddressNotAllocated ipallocator-repair-controller",
	}
	slices.Sort(want)
	var got []string
	poll(t, "the events to reach the API", func() bool {
		list, err := f.client.EventsV1().Events("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false
		}
		got = got[:0]
		for _, e := range list.Items {
			got = append(got, e.Regarding.Kind+"/"+e.Regarding.Name+" "+e.Reason+" "+e.ReportingController)
		}
		slices.Sort(got)
		got = slices.Compact(got)
		return slices.Equal(got, want)
	})
}

// TestRepairIPAddressServiceIndex checks the loop uses the one ClusterIP index
// of the shared informer, which the allocator may have added first, and finds
// a Service whose ClusterIPs are stored in legacy forms.
func TestRepairIPAddressServiceIndex(t *testing.T) {
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	services := factory.Core().V1().Services().Informer()
	if err := clusterip.AddIndexer(services); err != nil { // as the allocator does
		t.Fatal(err)
	}
	r := newRepairIPAddress(Config{Interval: time.Hour, Client: client, Informers: factory, IPAddresses: ipaddressindex.New(client)}, testingclock.NewFakeClock(testNow))
	t.Cleanup(r.queue.ShutDown)
	if !r.indexed {
		t.Fatal("the loop does not use the shared ClusterIP index")
	}
	if n := len(services.GetIndexer().GetIndexers()); n != 2 { // the namespace index and the ClusterIP index
		t.Errorf("the Service informer has %d indexes, want the namespace index and one ClusterIP index", n)
	}
	if err := services.GetIndexer().Add(newService("a", "010.000.000.010", "fd00:0::0a")); err != nil {
		t.Fatal(err)
	}
	for _, ip := range []string{"10.0.0.10", "fd00::a"} {
		if got := r.serviceHolding(netutils.ParseIPSloppy(ip)); got != "default/a" {
			t.Errorf("serviceHolding(%s) = %q, want default/a", ip, got)
		}
	}
	if got := r.serviceHolding(netutils.ParseIPSloppy("10.0.0.11")); got != "" {
		t.Errorf("serviceHolding(10.0.0.11) = %q, want none", got)
	}
}

func TestSetOrphanGracePeriodForTest(t *testing.T) {
	restore := SetOrphanGracePeriodForTest(3 * time.Second)
	short := newIPFixture(t).r.grace
	restore()
	if short != 3*time.Second {
		t.Errorf("grace after SetOrphanGracePeriodForTest(3s) = %v", short)
	}
	if got := newIPFixture(t).r.grace; got != DefaultOrphanGracePeriod {
		t.Errorf("grace after restore = %v, want %v", got, DefaultOrphanGracePeriod)
	}
}

// checkReported checks the events f's loop recorded, in order, and the
// ip_errors_total counts by type, leaving out those at zero.
func checkReported(t *testing.T, f *ipFixture, wantEvents []string, wantErrors map[string]float64) {
	t.Helper()
	if got := f.events.recorded(); !slices.Equal(got, wantEvents) {
		t.Errorf("events:\n got %q\nwant %q", got, wantEvents)
	}
	if got := ipErrors(t); !maps.Equal(got, wantErrors) {
		t.Errorf("ip_errors_total = %v, want %v", got, wantErrors)
	}
}

// countActions counts the client's actions with verb on resource.
func countActions(f *ipFixture, verb, resource string) int {
	n := 0
	for _, a := range f.client.Actions() {
		if a.GetVerb() == verb && a.GetResource() == (schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: resource}) {
			n++
		}
	}
	return n
}

// poll waits up to 30s for cond, failing the test with what it waited for.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
