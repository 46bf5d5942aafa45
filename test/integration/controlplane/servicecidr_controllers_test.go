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
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/cmd/kube-apiserver/app"
	"github.com/netfork/netfork/pkg/controlplane"
	"github.com/netfork/netfork/pkg/controlplane/controller/defaultservicecidr"
	"github.com/netfork/netfork/pkg/controlplane/controller/servicecidrs"
	"github.com/netfork/netfork/pkg/controlplane/controller/servicecidrtest"
	"github.com/netfork/netfork/test/integration/framework"
)

// testGracePeriod replaces the deletion controller's 60 s so the tests take seconds.
const testGracePeriod = time.Second

// withTestGracePeriod shortens the ServiceCIDR deletion grace period, which no flag sets, to testGracePeriod.
var withTestGracePeriod = framework.WithConfig(func(c *app.Config) {
	c.KubeAPIs.ServiceCIDRController.DeletionGracePeriod = testGracePeriod
})

var deletionControllerOff = framework.WithFlags("--enable-servicecidr-controller=false")

func TestDefaultServiceCIDRRecreatedWhenDeleted(t *testing.T) {
	ctx := context.Background()
	dual := []string{"10.96.0.0/16", "fd00:10:96::/108"}

	t.Run("no deletion controller: recreated at once", func(t *testing.T) {
		s := framework.StartAPIServer(t, deletionControllerOff)
		// ready means the default ServiceCIDR exists: no waiting
		if _, err := s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, defaultServiceCIDRName, metav1.GetOptions{}); err != nil {
			t.Fatalf("the apiserver is ready without the default ServiceCIDR: %v", err)
		}
		checks := readyzChecks(ctx, t, s.Client)
		if !slices.Contains(checks, "poststarthook/"+controlplane.DefaultServiceCIDRHookName) ||
			slices.Contains(checks, "poststarthook/"+controlplane.ServiceCIDRControllerHookName) {
			t.Errorf("/readyz checks %v: want upstream's %s and, with the deletion controller off, not %s",
				checks, controlplane.DefaultServiceCIDRHookName, controlplane.ServiceCIDRControllerHookName)
		}
		before := servicecidrtest.Eventually(t, s.Client, defaultServiceCIDRName, "ready", isReady)
		deleteServiceCIDR(ctx, t, s.Client, defaultServiceCIDRName)
		after := servicecidrtest.Eventually(t, s.Client, defaultServiceCIDRName, "recreated and ready", func(c *networkingv1.ServiceCIDR) bool {
			return c.UID != before.UID && isReady(c)
		})
		if !slices.Equal(after.Spec.CIDRs, dual) {
			t.Errorf("recreated with %v, want the flags' %v", after.Spec.CIDRs, dual)
		}
	})

	t.Run("deletion controller: blocked by the kubernetes Service, recreated once covered", func(t *testing.T) {
		s := framework.StartAPIServer(t, withTestGracePeriod)
		before := servicecidrtest.Eventually(t, s.Client, defaultServiceCIDRName, "protected and ready", protectedAndReady)
		// Only the kubernetes Service's IPAddress blocks the deletion, and the
		// apiserver creates that Service after it reports ready.
		waitKubernetesService(ctx, t, s.Client)
		kubernetes, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		waitIPAddress(ctx, t, s.Client, "10.96.0.1", kubernetes)
		deleteServiceCIDR(ctx, t, s.Client, defaultServiceCIDRName)
		blocked := servicecidrtest.Eventually(t, s.Client, defaultServiceCIDRName, "Ready=False Terminating", isTerminating)
		if msg := readyCondition(blocked).Message; !strings.Contains(msg, "IPAddress 10.96.0.1 ") {
			t.Errorf("Terminating message %q does not name the kubernetes Service's IP 10.96.0.1", msg)
		}

		// the KEP's migration: a ServiceCIDR that covers the addresses lets the old one go
		createServiceCIDR(ctx, t, s.Client, "cover", "10.96.0.0/15", "fd00:10:96::/107")
		after := servicecidrtest.Eventually(t, s.Client, defaultServiceCIDRName, "released and recreated", func(c *networkingv1.ServiceCIDR) bool {
			return c.UID != before.UID && protectedAndReady(c)
		})
		if !slices.Equal(after.Spec.CIDRs, dual) {
			t.Errorf("recreated with %v, want the flags' %v", after.Spec.CIDRs, dual)
		}
		svc, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		if err != nil || svc.Spec.ClusterIP != "10.96.0.1" {
			t.Fatalf("kubernetes Service = %v, %v; want it kept at 10.96.0.1", svc, err)
		}
		waitIPAddress(ctx, t, s.Client, "10.96.0.1", svc)
	})
}

func TestDefaultServiceCIDRFirstApiserverWins(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	first := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix))
	created := servicecidrtest.Eventually(t, first.Client, defaultServiceCIDRName, "ready", isReady)

	// a process, so that its /metrics count only its own controllers' work
	second := framework.StartNetforkProcess(t, framework.WithEtcdPrefix(prefix), framework.WithFlags("--service-cluster-ip-range=10.100.0.0/16"))
	event := waitEvent(ctx, t, second.Client, defaultservicecidr.ReasonError, "10.100.0.0/16")
	if event.Type != corev1.EventTypeWarning || event.Regarding.Kind != "ServiceCIDR" || event.Regarding.Name != defaultServiceCIDRName {
		t.Errorf("event %s is %s about %s %s, want a Warning about ServiceCIDR %s",
			event.Name, event.Type, event.Regarding.Kind, event.Regarding.Name, defaultServiceCIDRName)
	}
	if !strings.Contains(event.Note, "[10.96.0.0/16 fd00:10:96::/108]") {
		t.Errorf("event note %q does not name the kept CIDRs", event.Note)
	}

	// The event comes from the second apiserver's sync that decided to keep
	// the object. Its work queue counts the syncs that finished (upstream's
	// workqueue metrics): once the count passes the one read now, that sync
	// has run to its end. A label on the object brings the next sync at once
	// rather than at the 10 s resync.
	finished := queueFinished(ctx, t, second, "default_service_cidr")
	patch := []byte(`{"metadata":{"labels":{"netfork.test/touched":"true"}}}`)
	if _, err := first.Client.NetworkingV1().ServiceCIDRs().Patch(ctx, defaultServiceCIDRName, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		return queueFinished(ctx, t, second, "default_service_cidr") > finished, nil
	})
	if err != nil {
		t.Fatalf("the second apiserver's default-ServiceCIDR controller finished no sync after its event: %v", err)
	}
	kept := getServiceCIDR(ctx, t, second.Client, defaultServiceCIDRName)
	if kept.UID != created.UID || !slices.Equal(kept.Spec.CIDRs, created.Spec.CIDRs) {
		t.Errorf("the default ServiceCIDR changed to %v (uid %s); want the first apiserver's %v (uid %s)",
			kept.Spec.CIDRs, kept.UID, created.Spec.CIDRs, created.UID)
	}
}

func TestDefaultServiceCIDRSingleToDualStack(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	single := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix), framework.WithFlags("--service-cluster-ip-range=10.96.0.0/16"))
	created := servicecidrtest.Eventually(t, single.Client, defaultServiceCIDRName, "ready", isReady)
	if !slices.Equal(created.Spec.CIDRs, []string{"10.96.0.0/16"}) {
		t.Fatalf("created with %v, want [10.96.0.0/16]", created.Spec.CIDRs)
	}

	dual := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix)) // the framework's dual-stack flags
	upgraded := servicecidrtest.Eventually(t, dual.Client, defaultServiceCIDRName, "dual-stack", func(c *networkingv1.ServiceCIDR) bool {
		return slices.Equal(c.Spec.CIDRs, []string{"10.96.0.0/16", "fd00:10:96::/108"})
	})
	if upgraded.UID != created.UID {
		t.Errorf("the default ServiceCIDR was recreated (uid %s -> %s), want it updated in place", created.UID, upgraded.UID)
	}
	// the single-stack apiserver keeps it as it is now and says so
	waitEvent(ctx, t, single.Client, defaultservicecidr.ReasonError, "does not match this apiserver's --service-cluster-ip-range [10.96.0.0/16]")
}

func TestServiceCIDRDeletion(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, withTestGracePeriod)

	t.Run("elected on the Lease", func(t *testing.T) {
		if checks := readyzChecks(ctx, t, s.Client); !slices.Contains(checks, "poststarthook/"+controlplane.ServiceCIDRControllerHookName) {
			t.Errorf("/readyz checks %v lack %s", checks, controlplane.ServiceCIDRControllerHookName)
		}
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
			lease, err := s.Client.CoordinationV1().Leases(servicecidrs.LeaseNamespace).Get(ctx, servicecidrs.LeaseName, metav1.GetOptions{})
			return err == nil && lease.Spec.HolderIdentity != nil && strings.HasPrefix(*lease.Spec.HolderIdentity, "apiserver-"), nil
		})
		if err != nil {
			t.Fatalf("no Lease %s/%s held by the apiserver: %v", servicecidrs.LeaseNamespace, servicecidrs.LeaseName, err)
		}
	})

	t.Run("without IPAddresses it goes", func(t *testing.T) {
		createServiceCIDR(ctx, t, s.Client, "empty", "10.200.0.0/24")
		servicecidrtest.Eventually(t, s.Client, "empty", "protected and ready", protectedAndReady)
		deleteServiceCIDR(ctx, t, s.Client, "empty")
		waitServiceCIDRGone(ctx, t, s.Client, "empty")
	})

	t.Run("with IPAddresses it stays until they go", func(t *testing.T) {
		createServiceCIDR(ctx, t, s.Client, "busy", "10.201.0.0/24", "fd00:201::/112")
		servicecidrtest.Eventually(t, s.Client, "busy", "protected and ready", protectedAndReady)
		svc := createServiceWithIP(ctx, t, s.Client, "in-busy", "10.201.0.10")
		waitIPAddress(ctx, t, s.Client, "10.201.0.10", svc)

		deleteServiceCIDR(ctx, t, s.Client, "busy")
		blocked := servicecidrtest.Eventually(t, s.Client, "busy", "Ready=False Terminating", isTerminating)
		if msg := readyCondition(blocked).Message; !strings.Contains(msg, "IPAddress 10.201.0.10 ") {
			t.Errorf("Terminating message %q does not name 10.201.0.10", msg)
		}
		// An empty ServiceCIDR deleted after busy goes once its grace has run,
		// later than busy's would: by then the controller (one worker) had its
		// chance to release busy at the end of its grace.
		createServiceCIDR(ctx, t, s.Client, "sentinel", "10.209.0.0/24")
		servicecidrtest.Eventually(t, s.Client, "sentinel", "protected and ready", protectedAndReady)
		deleteServiceCIDR(ctx, t, s.Client, "sentinel")
		waitServiceCIDRGone(ctx, t, s.Client, "sentinel")
		if still := getServiceCIDR(ctx, t, s.Client, "busy"); !slices.Contains(still.Finalizers, servicecidrs.Finalizer) {
			t.Fatalf("finalizer removed while 10.201.0.10 is inside: %+v", still)
		}

		if err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		waitServiceCIDRGone(ctx, t, s.Client, "busy")
	})

	t.Run("scale up by a larger ServiceCIDR, then delete the smaller", func(t *testing.T) {
		createServiceCIDR(ctx, t, s.Client, "small", "10.202.0.0/24")
		servicecidrtest.Eventually(t, s.Client, "small", "protected and ready", protectedAndReady)
		services := []*corev1.Service{
			createServiceWithIP(ctx, t, s.Client, "in-small-a", "10.202.0.10"),
			createServiceWithIP(ctx, t, s.Client, "in-small-b", "10.202.0.254"),
		}
		createServiceCIDR(ctx, t, s.Client, "large", "10.202.0.0/23")
		servicecidrtest.Eventually(t, s.Client, "large", "protected and ready", protectedAndReady)

		deleteServiceCIDR(ctx, t, s.Client, "small")
		waitServiceCIDRGone(ctx, t, s.Client, "small")
		for _, want := range services {
			got, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, want.Name, metav1.GetOptions{})
			if err != nil || got.Spec.ClusterIP != want.Spec.ClusterIP {
				t.Fatalf("Service %s = %v, %v; want it kept with ClusterIP %s", want.Name, got, err, want.Spec.ClusterIP)
			}
			waitIPAddress(ctx, t, s.Client, want.Spec.ClusterIP, got)
		}
	})

	t.Run("two overlapping ServiceCIDRs deleted together keep each other", func(t *testing.T) {
		createServiceCIDR(ctx, t, s.Client, "twin-a", "10.203.0.0/24")
		createServiceCIDR(ctx, t, s.Client, "twin-b", "10.203.0.0/24")
		servicecidrtest.Eventually(t, s.Client, "twin-a", "protected and ready", protectedAndReady)
		servicecidrtest.Eventually(t, s.Client, "twin-b", "protected and ready", protectedAndReady)
		svc := createServiceWithIP(ctx, t, s.Client, "in-twins", "10.203.0.10")

		deleteServiceCIDR(ctx, t, s.Client, "twin-a")
		deleteServiceCIDR(ctx, t, s.Client, "twin-b")
		servicecidrtest.Eventually(t, s.Client, "twin-a", "Ready=False Terminating", isTerminating)
		servicecidrtest.Eventually(t, s.Client, "twin-b", "Ready=False Terminating", isTerminating)
		if err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		waitServiceCIDRGone(ctx, t, s.Client, "twin-a")
		waitServiceCIDRGone(ctx, t, s.Client, "twin-b")
	})
}

func TestServiceCIDRControllerDisabled(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, deletionControllerOff)
	servicecidrtest.Eventually(t, s.Client, defaultServiceCIDRName, "ready", isReady)
	// The deletion controller starts from its post-start hook, which /readyz
	// would list: with the hook absent nothing can finalize, so the checks
	// below need no waiting.
	if checks := readyzChecks(ctx, t, s.Client); slices.Contains(checks, "poststarthook/"+controlplane.ServiceCIDRControllerHookName) {
		t.Fatalf("/readyz checks %v hold %s with --enable-servicecidr-controller=false", checks, controlplane.ServiceCIDRControllerHookName)
	}
	createServiceCIDR(ctx, t, s.Client, "unguarded", "10.204.0.0/24")

	for _, name := range []string{defaultServiceCIDRName, "unguarded"} {
		c := getServiceCIDR(ctx, t, s.Client, name)
		if slices.Contains(c.Finalizers, servicecidrs.Finalizer) {
			t.Errorf("ServiceCIDR %s got the finalizer with the controller off", name)
		}
	}
	if c := getServiceCIDR(ctx, t, s.Client, "unguarded"); len(c.Status.Conditions) != 0 {
		t.Errorf("ServiceCIDR unguarded got conditions %+v with the controller off", c.Status.Conditions)
	}
	// The usage controller still runs, elected on the same Lease, under a hook of its own.
	if checks := readyzChecks(ctx, t, s.Client); !slices.Contains(checks, "poststarthook/"+controlplane.ServiceCIDRUsageHookName) {
		t.Errorf("/readyz checks %v lack %s with --enable-servicecidr-controller=false", checks, controlplane.ServiceCIDRUsageHookName)
	}
	deleteServiceCIDR(ctx, t, s.Client, "unguarded")
	if _, err := s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, "unguarded", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("ServiceCIDR unguarded after delete: %v, want it gone at once", err)
	}
}

func TestServiceCIDRBadInput(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t)
	servicecidrtest.Eventually(t, s.Client, defaultServiceCIDRName, "protected and ready", protectedAndReady)
	// The ServiceCIDR controllers may still write the default's status (the default
	// controller's Ready=True is rewritten with the deletion controller's message), so
	// what the rejected requests must leave alone is the set of objects and their specs.
	before := serviceCIDRSpecs(ctx, t, s.Client)

	tests := []struct {
		name    string
		cidrs   []string
		wantErr string
	}{
		{name: "three CIDRs", cidrs: []string{"10.210.0.0/24", "fd00:210::/112", "10.211.0.0/24"},
			wantErr: `spec.cidrs: Invalid value: {"CIDRs":["10.210.0.0/24","fd00:210::/112","10.211.0.0/24"]}: may only hold up to 2 values`},
		{name: "two of one family", cidrs: []string{"10.210.0.0/24", "10.211.0.0/24"},
			wantErr: `spec.cidrs: Invalid value: ["10.210.0.0/24","10.211.0.0/24"]: may specify no more than one IP for each IP family`},
		{name: "a host address", cidrs: []string{"10.210.0.5"},
			wantErr: `spec.cidrs[0]: Invalid value: "10.210.0.5": must be a valid CIDR value`},
		{name: "host bits set", cidrs: []string{"10.210.0.5/24"},
			wantErr: `spec.cidrs[0]: Invalid value: "10.210.0.5/24": must not have bits set beyond the prefix length`},
		{name: "non-canonical zeros", cidrs: []string{"fd00:210:0:0::/64"},
			wantErr: `spec.cidrs[0]: Invalid value: "fd00:210:0:0::/64": must be in canonical form ("fd00:210::/64")`},
		{name: "non-canonical case", cidrs: []string{"FD00:210::/112"},
			wantErr: `spec.cidrs[0]: Invalid value: "FD00:210::/112": must be in canonical form ("fd00:210::/112")`},
		{name: "no CIDR", cidrs: nil,
			wantErr: `spec.cidrs: Required value: at least one CIDR required`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cidr := &networkingv1.ServiceCIDR{
				ObjectMeta: metav1.ObjectMeta{Name: "bad"},
				Spec:       networkingv1.ServiceCIDRSpec{CIDRs: tc.cidrs},
			}
			_, err := s.Client.NetworkingV1().ServiceCIDRs().Create(ctx, cidr, metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("create = %v, want Invalid with %q", err, tc.wantErr)
			}
		})
	}

	t.Run("changing the default ServiceCIDR's primary", func(t *testing.T) {
		c := getServiceCIDR(ctx, t, s.Client, defaultServiceCIDRName)
		c.Spec.CIDRs = []string{"10.212.0.0/16", c.Spec.CIDRs[1]}
		_, err := s.Client.NetworkingV1().ServiceCIDRs().Update(ctx, c, metav1.UpdateOptions{})
		want := `spec.cidrs[0]: Invalid value: "10.212.0.0/16": field is immutable`
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("update = %v, want Invalid with %q", err, want)
		}
	})

	if after := serviceCIDRSpecs(ctx, t, s.Client); !maps.Equal(before, after) {
		t.Errorf("ServiceCIDRs changed after rejected requests: %v -> %v", before, after)
	}
}

func protectedAndReady(c *networkingv1.ServiceCIDR) bool {
	return slices.Contains(c.Finalizers, servicecidrs.Finalizer) && isReady(c)
}

func isTerminating(c *networkingv1.ServiceCIDR) bool {
	cond := readyCondition(c)
	return cond != nil && cond.Status == metav1.ConditionFalse && cond.Reason == networkingv1.ServiceCIDRReasonTerminating
}

func readyCondition(c *networkingv1.ServiceCIDR) *metav1.Condition {
	for i := range c.Status.Conditions {
		if c.Status.Conditions[i].Type == networkingv1.ServiceCIDRConditionReady {
			return &c.Status.Conditions[i]
		}
	}
	return nil
}

func createServiceCIDR(ctx context.Context, t *testing.T, client kubernetes.Interface, name string, cidrs ...string) {
	t.Helper()
	cidr := &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: cidrs}}
	if _, err := client.NetworkingV1().ServiceCIDRs().Create(ctx, cidr, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating ServiceCIDR %s %v: %v", name, cidrs, err)
	}
}

func deleteServiceCIDR(ctx context.Context, t *testing.T, client kubernetes.Interface, name string) {
	t.Helper()
	if err := client.NetworkingV1().ServiceCIDRs().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting ServiceCIDR %s: %v", name, err)
	}
}

func getServiceCIDR(ctx context.Context, t *testing.T, client kubernetes.Interface, name string) *networkingv1.ServiceCIDR {
	t.Helper()
	c, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting ServiceCIDR %s: %v", name, err)
	}
	return c
}

func waitServiceCIDRGone(ctx context.Context, t *testing.T, client kubernetes.Interface, name string) {
	t.Helper()
	var last *networkingv1.ServiceCIDR
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		c, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, name, metav1.GetOptions{})
		last = c
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("ServiceCIDR %s is still there: %v; last seen finalizers %v status %+v", name, err, last.GetFinalizers(), last.Status)
	}
}

// createServiceWithIP creates a ClusterIP Service asking for ip, retrying while
// the allocator has not seen the ServiceCIDR that holds ip yet.
func createServiceWithIP(ctx context.Context, t *testing.T, client kubernetes.Interface, name, ip string) *corev1.Service {
	t.Helper()
	svc := clusterIPService(name)
	svc.Spec.ClusterIP = ip
	var created *corev1.Service
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		created, lastErr = client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, svc, metav1.CreateOptions{})
		return lastErr == nil, nil
	})
	if err != nil {
		t.Fatalf("creating Service %s with ClusterIP %s: %v", name, ip, lastErr)
	}
	return created
}

// waitEvent waits for an events/v1 event of reason whose note contains text.
func waitEvent(ctx context.Context, t *testing.T, client kubernetes.Interface, reason, text string) *eventsv1.Event {
	t.Helper()
	var found *eventsv1.Event
	var seen []string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		list, err := client.EventsV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		seen = seen[:0]
		for i := range list.Items {
			e := &list.Items[i]
			seen = append(seen, e.Reason+": "+e.Note)
			if e.Reason == reason && strings.Contains(e.Note, text) {
				found = e
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no %s event saying %q; events seen: %q", reason, text, seen)
	}
	return found
}

// serviceCIDRSpecs maps each ServiceCIDR to its UID and CIDRs (ServiceCIDRs keep generation 0).
func serviceCIDRSpecs(ctx context.Context, t *testing.T, client kubernetes.Interface) map[string]string {
	t.Helper()
	list, err := client.NetworkingV1().ServiceCIDRs().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing ServiceCIDRs: %v", err)
	}
	out := map[string]string{}
	for _, c := range list.Items {
		out[c.Name] = fmt.Sprintf("%s %v", c.UID, c.Spec.CIDRs)
	}
	return out
}

// readyzChecks are the names of the checks /readyz?verbose lists.
func readyzChecks(ctx context.Context, t *testing.T, client kubernetes.Interface) []string {
	t.Helper()
	body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").Param("verbose", "true").DoRaw(ctx)
	if err != nil {
		t.Fatalf("GET /readyz?verbose: %v", err)
	}
	var checks []string
	for _, line := range strings.Split(string(body), "\n") {
		if name, ok := strings.CutPrefix(line, "[+]"); ok {
			checks = append(checks, strings.TrimSuffix(name, " ok"))
		}
	}
	return checks
}

// queueFinished is how many items the work queue name of an apiserver run as
// a process has finished, from its /metrics.
func queueFinished(ctx context.Context, t *testing.T, s *framework.APIServer, name string) int {
	t.Helper()
	body, err := s.Client.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	series := fmt.Sprintf("workqueue_work_duration_seconds_count{name=%q}", name)
	for _, line := range strings.Split(string(body), "\n") {
		if value, ok := strings.CutPrefix(line, series+" "); ok {
			n, err := strconv.Atoi(value)
			if err != nil {
				t.Fatalf("/metrics %s: %v", line, err)
			}
			return n
		}
	}
	t.Fatalf("/metrics has no %s", series)
	return 0
}
