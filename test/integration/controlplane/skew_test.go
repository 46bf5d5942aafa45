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

package controlplane

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/netfork/netfork/test/integration/framework"
)

// TestSkewWithUpstream runs a netfork and an upstream kube-apiserver (the release
// go.mod pins) on one etcd: Services created concurrently through both get distinct ClusterIPs
// with IPAddresses, each apiserver sees the Services the other created and
// accepts updates to them, and neither kind's repair loop flags or removes the
// other's IPAddresses, not even in a full pass over all of them.
func TestSkewWithUpstream(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	netfork := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix))
	upstream := framework.StartUpstreamAPIServer(t, framework.WithEtcdPrefix(prefix))

	const concurrent = 200
	createConcurrently(ctx, t, []*framework.APIServer{netfork, upstream}, concurrent)
	assertUniqueAllocations(ctx, t, netfork, concurrent)
	all, err := netfork.Client.CoreV1().Services(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range all.Items {
		waitIPAddress(ctx, t, netfork.Client, all.Items[i].Spec.ClusterIP, &all.Items[i])
	}

	servers := map[string]*framework.APIServer{"netfork": netfork, "upstream": upstream}
	made := map[string]*networkingv1.IPAddress{}
	for name, s := range servers {
		created := createService(ctx, t, s.Client, clusterIPService("from-"+name))
		all.Items = append(all.Items, *created)
		made[name] = waitIPAddress(ctx, t, s.Client, created.Spec.ClusterIP, created)
	}
	assertSameIPAddressMetadata(t, made["netfork"], made["upstream"])

	for reader, s := range servers {
		for creator := range servers {
			name := "from-" + creator
			svc, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("%s cannot read Service %s created through %s: %v", reader, name, creator, err)
			}
			waitIPAddress(ctx, t, s.Client, svc.Spec.ClusterIP, svc)
			patch := fmt.Sprintf(`{"metadata":{"labels":{"touched-by-%s":"true"}}}`, reader)
			if _, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
				t.Errorf("%s rejects an update of Service %s created through %s: %v", reader, name, creator, err)
			}
		}
	}

	// A repair loop's first pass judges every Service and allocator-made
	// IPAddress of the cluster before its apiserver reports ready, in netfork
	// as in upstream. One more apiserver of each kind, started after the last
	// write, has judged every object in its final state: its readiness is the
	// positive signal that each kind of repair had its chance to flag or
	// remove what the other kind made. The running loops judged each object
	// as its events came; their periodic passes judge them again the same way.
	framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix))
	framework.StartUpstreamAPIServer(t, framework.WithEtcdPrefix(prefix))
	untouched := assertIPAddressesUntouched(ctx, t, upstream, all.Items)
	events, err := netfork.Client.EventsV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing events: %v", err)
	}
	for _, e := range events.Items {
		switch {
		case e.Type != "Warning":
		case e.Reason == "ClusterIPNotAllocated" && untouched[e.Regarding.Name]:
			// Upstream's repair loop checks a new Service against its IPAddress
			// cache, which can lag its Service cache: it reports, its create
			// fails with AlreadyExists, and it changes nothing. netfork's loop
			// reports only after creating the IPAddress, which would be newer
			// than the Service.
			t.Logf("upstream's repair loop reported a false %s for %s (its IPAddress predates the Service and was not changed): %s", e.Reason, e.Regarding.Name, e.Note)
		default:
			t.Errorf("warning event %s on %s/%s from %s/%s: %s", e.Reason, e.Regarding.Kind, e.Regarding.Name, e.ReportingController, e.ReportingInstance, e.Note)
		}
	}
	for creator := range servers {
		name := "from-" + creator
		svc, err := netfork.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("Service %s disappeared: %v", name, err)
		}
		err = wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := upstream.Client.NetworkingV1().IPAddresses().Get(ctx, svc.Spec.ClusterIP, metav1.GetOptions{})
			return err == nil, nil
		})
		if err != nil {
			t.Errorf("IPAddress %s of Service %s is gone: %v", svc.Spec.ClusterIP, name, err)
		}
	}
}

// assertIPAddressesUntouched checks that each Service's IPAddress exists, was
// written no later than the Service (its resourceVersion, an etcd revision, is
// at most that of the Service as first listed: lower when written before it,
// as upstream does, equal when written in the Service's own transaction) and
// has not been written since, so no repair loop deleted, recreated or changed
// it. It returns the names of the Services that hold.
func assertIPAddressesUntouched(ctx context.Context, t *testing.T, s *framework.APIServer, services []corev1.Service) map[string]bool {
	t.Helper()
	list, err := s.Client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]networkingv1.IPAddress{}
	for _, ipa := range list.Items {
		byName[ipa.Name] = ipa
	}
	untouched := map[string]bool{}
	for _, svc := range services {
		ipa, ok := byName[svc.Spec.ClusterIP]
		switch {
		case !ok:
			t.Errorf("IPAddress %s of Service %s was removed", svc.Spec.ClusterIP, svc.Name)
		case revision(t, ipa.ResourceVersion) > revision(t, svc.ResourceVersion):
			t.Errorf("IPAddress %s of Service %s was written after the Service (resourceVersion %s, Service's %s): a repair loop recreated or changed it",
				ipa.Name, svc.Name, ipa.ResourceVersion, svc.ResourceVersion)
		default:
			untouched[svc.Name] = true
		}
	}
	return untouched
}

func revision(t *testing.T, rv string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q is not an etcd revision: %v", rv, err)
	}
	return n
}

// assertSameIPAddressMetadata checks that netfork, which writes IPAddresses in
// process, stores what upstream's loopback request stores: the same labels,
// parentRef (but for the Service's name) and managed fields (manager,
// operation, version and field set).
func assertSameIPAddressMetadata(t *testing.T, fromNetfork, fromUpstream *networkingv1.IPAddress) {
	t.Helper()
	if !reflect.DeepEqual(fromNetfork.Labels, fromUpstream.Labels) {
		t.Errorf("IPAddress labels: netfork %v, upstream %v", fromNetfork.Labels, fromUpstream.Labels)
	}
	nf, up := *fromNetfork.Spec.ParentRef, *fromUpstream.Spec.ParentRef
	nf.Name, up.Name = "", ""
	if nf != up {
		t.Errorf("IPAddress parentRef: netfork %+v, upstream %+v", *fromNetfork.Spec.ParentRef, *fromUpstream.Spec.ParentRef)
	}
	strip := func(entries []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
		out := make([]metav1.ManagedFieldsEntry, len(entries))
		for i, e := range entries {
			e.Time = nil
			out[i] = e
		}
		return out
	}
	if nf, up := strip(fromNetfork.ManagedFields), strip(fromUpstream.ManagedFields); !reflect.DeepEqual(nf, up) || len(nf) == 0 {
		t.Errorf("IPAddress managedFields differ:\nnetfork:  %s\nupstream: %s", describeManagedFields(nf), describeManagedFields(up))
	}
}

func describeManagedFields(entries []metav1.ManagedFieldsEntry) string {
	var parts []string
	for _, e := range entries {
		fields := ""
		if e.FieldsV1 != nil {
			fields = e.FieldsV1.GetRawString()
		}
		parts = append(parts, fmt.Sprintf("{manager %q op %s %s %s %s}", e.Manager, e.Operation, e.APIVersion, e.FieldsType, fields))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// TestUpstreamReadsNetforkServicesAndIPAddresses has netfork store
// single-stack and dual-stack Services, each with IPAddresses it writes
// beside or together with the Service, encrypted at rest; an upstream
// apiserver (the release go.mod pins) started afterwards on the same etcd
// with the same encryption config reads them as netfork wrote them: the same
// Services, and IPAddresses marked as upstream's allocator marks its own
// (labels, parentRef). Its repair loop's first pass, which its readiness
// waited for, leaves them as they were (same UID and resourceVersion).
func TestUpstreamReadsNetforkServicesAndIPAddresses(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	config, _ := newEncryptionConfig(t)
	flags := framework.WithFlags("--service-cluster-ip-range="+dualStackRanges, "--encryption-provider-config="+config)
	netfork := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix), flags)
	waitKubernetesService(ctx, t, netfork.Client)

	var created []*corev1.Service
	stored := map[string]*networkingv1.IPAddress{}
	for _, svc := range []*corev1.Service{
		clusterIPService("single-stack"),
		withFamilies(clusterIPService("dual-stack"), corev1.IPFamilyPolicyRequireDualStack),
		withFamilies(clusterIPService("dual-stack-ipv6-first"), corev1.IPFamilyPolicyRequireDualStack, corev1.IPv6Protocol, corev1.IPv4Protocol),
	} {
		svc = createService(ctx, t, netfork.Client, svc)
		created = append(created, svc)
		for _, ip := range svc.Spec.ClusterIPs {
			stored[ip] = waitIPAddress(ctx, t, netfork.Client, ip, svc)
		}
	}

	upstream := framework.StartUpstreamAPIServer(t, framework.WithEtcdPrefix(prefix), flags)
	for _, svc := range created {
		got, err := upstream.Client.CoreV1().Services(svc.Namespace).Get(ctx, svc.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("upstream cannot read Service %s created through netfork: %v", svc.Name, err)
		}
		if got.UID != svc.UID || got.ResourceVersion != svc.ResourceVersion || !reflect.DeepEqual(got.Spec.ClusterIPs, svc.Spec.ClusterIPs) {
			t.Errorf("upstream reads Service %s as UID %s resourceVersion %s ClusterIPs %v; netfork created UID %s resourceVersion %s ClusterIPs %v",
				svc.Name, got.UID, got.ResourceVersion, got.Spec.ClusterIPs, svc.UID, svc.ResourceVersion, svc.Spec.ClusterIPs)
		}
		for _, ip := range svc.Spec.ClusterIPs {
			a, err := upstream.Client.NetworkingV1().IPAddresses().Get(ctx, ip, metav1.GetOptions{})
			if err != nil {
				t.Errorf("upstream cannot read IPAddress %s of Service %s created through netfork: %v", ip, svc.Name, err)
				continue
			}
			checkAllocatorIPAddress(t, a, svc)
			if want := stored[ip]; a.UID != want.UID || a.ResourceVersion != want.ResourceVersion {
				t.Errorf("upstream reads IPAddress %s as UID %s resourceVersion %s; netfork stored UID %s resourceVersion %s: it was recreated or changed",
					ip, a.UID, a.ResourceVersion, want.UID, want.ResourceVersion)
			}
		}
	}
	list, err := upstream.Client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("upstream cannot list IPAddresses: %v", err)
	}
	listed := map[string]bool{}
	for _, a := range list.Items {
		listed[a.Name] = true
	}
	for ip := range stored {
		if !listed[ip] {
			t.Errorf("upstream's list of IPAddresses lacks %s", ip)
		}
	}
}
