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
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	metav1apply "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1apply "k8s.io/client-go/applyconfigurations/networking/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/pkg/controlplane/controller/servicecidrtest"
	"github.com/netfork/netfork/pkg/controlplane/controller/servicecidrusage"
	"github.com/netfork/netfork/test/integration/framework"
)

// tableAccept is what kubectl get asks for.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"

// TestServiceCIDRUsage fills a /28 ServiceCIDR (14 usable addresses) one
// Service at a time and reads its counts as kubectl does, as a Table, and
// its NearlyFull condition: set at 13 used (>= 90%), Full at 14, cleared
// only below 85%, next to an untouched Ready=True.
func TestServiceCIDRUsage(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t)
	const name = "small"
	small := &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.100.0.0/28"}}}
	if _, err := s.Client.NetworkingV1().ServiceCIDRs().Create(ctx, small, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	servicecidrtest.Eventually(t, s.Client, name, "Ready=True", isReady)

	create := func(i int) {
		t.Helper()
		svc := clusterIPService(fmt.Sprintf("small-%d", i))
		svc.Spec.ClusterIP = fmt.Sprintf("10.100.0.%d", i)
		created := createService(ctx, t, s.Client, svc)
		waitIPAddress(ctx, t, s.Client, created.Spec.ClusterIP, created)
	}
	for i := 1; i <= 12; i++ {
		create(i)
	}
	waitUsageCells(ctx, t, s.Client, name, "12", "2")

	create(13)
	waitUsageCells(ctx, t, s.Client, name, "13", "1")
	servicecidrtest.Eventually(t, s.Client, name, "NearlyFull=True, reason NearlyFull, at 13 of 14", conditionIs(metav1.ConditionTrue, servicecidrusage.ReasonNearlyFull))
	// The message holds the counts of the transition: set at 12 (86%), it would say 12.
	if c := usageCondition(t, s.Client, name); c == nil || !strings.HasPrefix(c.Message, "10.100.0.0/28: 13 of 14 addresses used") {
		t.Errorf("condition set at another count than 13 of 14: %+v", c)
	}

	create(14)
	got := servicecidrtest.Eventually(t, s.Client, name, "NearlyFull=True, reason Full, at 14 of 14", conditionIs(metav1.ConditionTrue, servicecidrusage.ReasonFull))
	if !isReady(got) {
		t.Errorf("a full ServiceCIDR lost Ready=True: %+v", got.Status.Conditions)
	}
	waitUsageCells(ctx, t, s.Client, name, "14", "0")

	// kube-controller-manager's service-cidr-controller applies Ready alone,
	// forced, under its field manager; the condition is not its to drop.
	ready := networkingv1apply.ServiceCIDR(name).WithStatus(networkingv1apply.ServiceCIDRStatus().WithConditions(
		metav1apply.Condition().WithType(networkingv1.ServiceCIDRConditionReady).WithStatus(metav1.ConditionTrue).
			WithReason("").WithMessage("Kubernetes Service CIDR is ready").WithLastTransitionTime(metav1.Now())))
	if _, err := s.Client.NetworkingV1().ServiceCIDRs().ApplyStatus(ctx, ready, metav1.ApplyOptions{FieldManager: "service-cidr-controller", Force: true}); err != nil {
		t.Fatalf("applying Ready as kube-controller-manager does: %v", err)
	}
	if c := usageCondition(t, s.Client, name); c == nil || c.Reason != servicecidrusage.ReasonFull {
		t.Errorf("after kube-controller-manager's apply of Ready, condition = %+v, want it kept", c)
	}
	svc := clusterIPService("small-broadcast")
	svc.Spec.ClusterIP = "10.100.0.15"
	if _, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, svc, metav1.CreateOptions{}); err == nil {
		t.Errorf("a Service got the /28's broadcast address")
	}

	for i := 12; i <= 14; i++ {
		if err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, fmt.Sprintf("small-%d", i), metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitUsageCells(ctx, t, s.Client, name, "11", "3")
	servicecidrtest.Eventually(t, s.Client, name, "NearlyFull=False, reason HasRoom, at 11 of 14", conditionIs(metav1.ConditionFalse, servicecidrusage.ReasonHasRoom))

	var reasons []string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		events, err := s.Client.EventsV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		reasons = nil
		for _, e := range events.Items {
			if e.Regarding.Kind == "ServiceCIDR" && e.Regarding.Name == name && e.ReportingController == servicecidrusage.FieldManager {
				reasons = append(reasons, e.Type+" "+e.Reason)
			}
		}
		slices.Sort(reasons)
		return len(reasons) >= 3, nil
	})
	if want := []string{"Normal HasRoom", "Warning Full", "Warning NearlyFull"}; err != nil || !slices.Equal(reasons, want) {
		t.Errorf("usage events on %s = %v, want %v", name, reasons, want)
	}
}

func conditionIs(status metav1.ConditionStatus, reason string) func(*networkingv1.ServiceCIDR) bool {
	return func(c *networkingv1.ServiceCIDR) bool {
		got := apimeta.FindStatusCondition(c.Status.Conditions, servicecidrusage.ConditionType)
		return got != nil && got.Status == status && got.Reason == reason
	}
}

func usageCondition(t *testing.T, client kubernetes.Interface, name string) *metav1.Condition {
	t.Helper()
	c, err := client.NetworkingV1().ServiceCIDRs().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return apimeta.FindStatusCondition(c.Status.Conditions, servicecidrusage.ConditionType)
}

// waitUsageCells waits until the Table of ServiceCIDRs has upstream's columns
// then Used and Free, and the row of name shows used and free.
func waitUsageCells(ctx context.Context, t *testing.T, client kubernetes.Interface, name, used, free string) {
	t.Helper()
	var last []any
	var columns []string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		raw, err := client.NetworkingV1().RESTClient().Get().Resource("servicecidrs").SetHeader("Accept", tableAccept).DoRaw(ctx)
		if err != nil {
			return false, err
		}
		var table metav1.Table
		if err := json.Unmarshal(raw, &table); err != nil {
			return false, err
		}
		columns = nil
		for _, c := range table.ColumnDefinitions {
			columns = append(columns, c.Name)
		}
		for _, row := range table.Rows {
			if len(row.Cells) == 5 && row.Cells[0] == name {
				last = row.Cells
				return row.Cells[3] == used && row.Cells[4] == free, nil
			}
		}
		return false, nil
	})
	if want := []string{"Name", "CIDRs", "Age", "Used", "Free"}; !slices.Equal(columns, want) {
		t.Fatalf("ServiceCIDR table columns = %v, want %v", columns, want)
	}
	if err != nil {
		t.Fatalf("ServiceCIDR %s row never showed Used %s, Free %s: last %v (%v)", name, used, free, last, err)
	}
}

// TestServiceCIDRUsageTableDualStack: the default ServiceCIDR's cells hold one
// count per CIDR, in the order of its CIDRs, the kubernetes Service's address counted.
func TestServiceCIDRUsageTableDualStack(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t)
	waitKubernetesService(ctx, t, s.Client)
	svc := clusterIPService("dual")
	policy := corev1.IPFamilyPolicyRequireDualStack
	svc.Spec.IPFamilyPolicy = &policy
	createService(ctx, t, s.Client, svc)
	waitUsageCells(ctx, t, s.Client, defaultServiceCIDRName, "2,1", fmt.Sprintf("%d,%d", 65534-2, 1<<20-1-1))
}
