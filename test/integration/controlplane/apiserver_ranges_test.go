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
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/cmd/kube-apiserver/app"
	"github.com/netfork/netfork/pkg/controlplane/apiserverranges"
	"github.com/netfork/netfork/test/integration/framework"
)

// TestIdentityLeasePublishesServiceRanges: a netfork apiserver's identity
// Lease carries its --service-cluster-ip-range, still after upstream's lease
// controller renewed it, and Check counts it as serving that range.
func TestIdentityLeasePublishesServiceRanges(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t)
	lease := waitPublished(ctx, t, s.Client, framework.DefaultServiceCIDRs)
	renewed := lease.Spec.RenewTime.Time
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		l, err := s.Client.CoordinationV1().Leases(metav1.NamespaceSystem).Get(ctx, lease.Name, metav1.GetOptions{})
		if err != nil || !l.Spec.RenewTime.After(renewed) {
			return false, nil
		}
		lease = l
		return true, nil
	})
	if err != nil {
		t.Fatalf("identity Lease %s was not renewed: %v", lease.Name, err)
	}
	if got := lease.Annotations[apiserverranges.Annotation]; got != framework.DefaultServiceCIDRs {
		t.Errorf("after a renewal, %s = %q, want %q", apiserverranges.Annotation, got, framework.DefaultServiceCIDRs)
	}

	r, err := apiserverranges.Check(ctx, s.Client, framework.DefaultServiceCIDRs, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Rolled() || len(r.Serving) != 1 || r.Serving[0].ID != lease.Name {
		t.Errorf("Check = %+v, want %s alone, serving", r, lease.Name)
	}
	r, err = apiserverranges.Check(ctx, s.Client, "10.0.0.0/16", time.Now())
	if err != nil || r.Rolled() || len(r.Other) != 1 {
		t.Errorf("Check for another range = %+v, %v; want %s on other ranges", r, err, lease.Name)
	}
}

// TestIdentityLeaseRangesSkew: upstream's apiserver publishes no ranges and
// counts as not rolled beside a netfork one. An apiserver's ID, its identity
// Lease's name, is a hash of its host name, so two apiservers on one host
// share one Lease: the netfork one gets an ID of its own here.
func TestIdentityLeaseRangesSkew(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	netfork := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix), framework.WithConfig(func(c *app.Config) {
		c.KubeAPIs.ControlPlane.Generic.APIServerID = "apiserver-netfork-skew-test"
	}))
	framework.StartUpstreamAPIServer(t, framework.WithEtcdPrefix(prefix))
	waitPublished(ctx, t, netfork.Client, framework.DefaultServiceCIDRs)

	var r apiserverranges.Report
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		got, err := apiserverranges.Check(ctx, netfork.Client, framework.DefaultServiceCIDRs, time.Now())
		if err != nil {
			return false, nil
		}
		r = got
		return len(r.Serving)+len(r.Unpublished) == 2, nil
	})
	if err != nil || len(r.Serving) != 1 || r.Serving[0].ID != "apiserver-netfork-skew-test" || len(r.Unpublished) != 1 || r.Rolled() {
		t.Errorf("Check = %+v (%v); want the netfork apiserver serving, upstream's unpublished, not rolled", r, err)
	}
}

// waitPublished waits for an identity Lease annotated with value and returns it.
func waitPublished(ctx context.Context, t *testing.T, client kubernetes.Interface, value string) *coordinationv1.Lease {
	t.Helper()
	var found *coordinationv1.Lease
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		leases, err := client.CoordinationV1().Leases(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{LabelSelector: "apiserver.kubernetes.io/identity=kube-apiserver"})
		if err != nil {
			return false, nil
		}
		for i := range leases.Items {
			if leases.Items[i].Annotations[apiserverranges.Annotation] == value {
				found = &leases.Items[i]
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no identity Lease carries %s=%s: %v", apiserverranges.Annotation, value, err)
	}
	return found
}
