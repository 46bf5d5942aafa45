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
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/test/integration/framework"
)

const (
	// refuseLabel marks the Services the test's policy refuses.
	refuseLabel = "test.netfork.io/refuse"
	// refusedServiceMessage is what the policy answers for them.
	refusedServiceMessage = "Services labeled test.netfork.io/refuse are refused by policy"
	// quotaRefusal is the start of the ResourceQuota admission's answer.
	quotaRefusal = "exceeded quota"
)

// TestServiceCreateRefusedAfterPrepareLeavesNoIPAddress refuses Service
// creates in validating admission, which runs after the Service storage has
// chosen the ClusterIPs and prepared their IPAddresses: once for a
// ResourceQuota that allows no Service and once for a
// ValidatingAdmissionPolicy. A refused create leaves no IPAddress, not even
// for a moment: a watch on IPAddresses, started before the refused creates,
// must deliver nothing before the IPAddress of a sentinel Service created
// after them (the positive signal that the watch had its chance). The
// sentinel takes a static ClusterIP a refused create asked for, so the
// refusal must also have released it.
func TestServiceCreateRefusedAfterPrepareLeavesNoIPAddress(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, framework.WithFlags("--service-cluster-ip-range="+dualStackRanges))
	defer s.Stop()
	waitKubernetesService(ctx, t, s.Client)

	const quotaNamespace = "no-services"
	refuseServicesByQuota(ctx, t, s.Client, quotaNamespace)
	refuseLabelledServices(ctx, t, s.Client)

	addresses := s.Client.NetworkingV1().IPAddresses()
	list, err := addresses.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := addresses.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	for _, c := range []struct {
		namespace string
		svc       *corev1.Service
		refusal   string
	}{
		{quotaNamespace, clusterIPService("over-quota"), quotaRefusal},
		{quotaNamespace, withFamilies(clusterIPService("over-quota-dual"), corev1.IPFamilyPolicyRequireDualStack), quotaRefusal},
		{quotaNamespace, withClusterIPs(clusterIPService("over-quota-static"), "10.100.0.200"), quotaRefusal},
		{metav1.NamespaceDefault, labeled(clusterIPService("refused")), refusedServiceMessage},
		{metav1.NamespaceDefault, labeled(withFamilies(clusterIPService("refused-dual"), corev1.IPFamilyPolicyRequireDualStack)), refusedServiceMessage},
		{metav1.NamespaceDefault, labeled(withFamilies(withClusterIPs(clusterIPService("refused-static-dual"), "10.100.0.200", "fd00:10:100::200"), corev1.IPFamilyPolicyRequireDualStack)), refusedServiceMessage},
	} {
		_, err := s.Client.CoreV1().Services(c.namespace).Create(ctx, c.svc, metav1.CreateOptions{})
		switch {
		case err == nil:
			t.Errorf("Service %s/%s was created; want it refused with %q", c.namespace, c.svc.Name, c.refusal)
		case !strings.Contains(err.Error(), c.refusal):
			t.Errorf("creating Service %s/%s: %v; want a refusal with %q", c.namespace, c.svc.Name, err, c.refusal)
		}
	}

	sentinel := createService(ctx, t, s.Client, withClusterIPs(clusterIPService("sentinel"), "10.100.0.200"))
	for {
		ev := nextWatchEvent(t, w, "IPAddresses")
		ipa, ok := ev.Object.(*networkingv1.IPAddress)
		if !ok {
			t.Fatalf("IPAddress watch sent %s %T", ev.Type, ev.Object)
		}
		if ev.Type == watch.Added && ipa.Name == sentinel.Spec.ClusterIP && isParent(ipa, sentinel) {
			return
		}
		t.Errorf("IPAddress event %s %s (parentRef %+v, resourceVersion %s) before the sentinel's IPAddress: a refused Service create wrote an IPAddress",
			ev.Type, ipa.Name, ipa.Spec.ParentRef, ipa.ResourceVersion)
	}
}

// refuseServicesByQuota creates namespace with a ResourceQuota of no Services
// and returns once it bites. No quota controller runs beside the test
// apiserver, so the test writes the quota's status itself. The probe is a
// headless Service, which gets no ClusterIP, so no try leaves an IPAddress.
func refuseServicesByQuota(ctx context.Context, t *testing.T, client kubernetes.Interface, namespace string) {
	t.Helper()
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", namespace, err)
	}
	none := corev1.ResourceList{corev1.ResourceServices: resource.MustParse("0")}
	quota := &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "no-services"},
		Spec:       corev1.ResourceQuotaSpec{Hard: none},
	}
	quota, err := client.CoreV1().ResourceQuotas(namespace).Create(ctx, quota, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating ResourceQuota: %v", err)
	}
	quota.Status = corev1.ResourceQuotaStatus{Hard: none, Used: none}
	if _, err := client.CoreV1().ResourceQuotas(namespace).UpdateStatus(ctx, quota, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("writing the ResourceQuota's status: %v", err)
	}
	waitRefused(ctx, t, client, namespace, headless("quota-probe"), quotaRefusal)
}

// refuseLabelledServices creates a ValidatingAdmissionPolicy that refuses
// creating Services labeled refuseLabel and returns once it bites; the probe
// is a headless Service, so no try leaves an IPAddress.
func refuseLabelledServices(ctx context.Context, t *testing.T, client kubernetes.Interface) {
	t.Helper()
	denyRequests(ctx, t, client, "refuse-labeled-services",
		admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"services"}},
		admissionregistrationv1.Create,
		admissionregistrationv1.Validation{
			Expression: "!has(object.metadata.labels) || !('" + refuseLabel + "' in object.metadata.labels)",
			Message:    refusedServiceMessage,
		})
	waitRefused(ctx, t, client, metav1.NamespaceDefault, labeled(headless("policy-probe")), refusedServiceMessage)
}

// waitRefused creates probe in namespace until the create is refused with
// refusal, deleting it again after each try that succeeds.
func waitRefused(ctx context.Context, t *testing.T, client kubernetes.Interface, namespace string, probe *corev1.Service, refusal string) {
	t.Helper()
	services := client.CoreV1().Services(namespace)
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		_, lastErr = services.Create(ctx, probe.DeepCopy(), metav1.CreateOptions{})
		if lastErr == nil {
			return false, services.Delete(ctx, probe.Name, metav1.DeleteOptions{})
		}
		return strings.Contains(lastErr.Error(), refusal), nil
	})
	if err != nil {
		t.Fatalf("creating Service %s/%s was never refused with %q: %v (last answer: %v)", namespace, probe.Name, refusal, err, lastErr)
	}
}

// headless is a Service that gets no ClusterIP.
func headless(name string) *corev1.Service {
	svc := clusterIPService(name)
	svc.Spec.ClusterIP = corev1.ClusterIPNone
	return svc
}

// labeled marks svc for the test's refusing policy.
func labeled(svc *corev1.Service) *corev1.Service {
	if svc.Labels == nil {
		svc.Labels = map[string]string{}
	}
	svc.Labels[refuseLabel] = "true"
	return svc
}

// isParent tells whether svc is a's parent.
func isParent(a *networkingv1.IPAddress, svc *corev1.Service) bool {
	ref := a.Spec.ParentRef
	return ref != nil && ref.Resource == "services" && ref.Namespace == svc.Namespace && ref.Name == svc.Name
}

// nextWatchEvent is w's next event; the test fails when the watch ends,
// reports an error, or sends nothing within pollTimeout.
func nextWatchEvent(t *testing.T, w watch.Interface, what string) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("the watch on %s ended", what)
		}
		if ev.Type == watch.Error {
			t.Fatalf("the watch on %s failed: %v", what, apierrors.FromObject(ev.Object))
		}
		return ev
	case <-time.After(pollTimeout):
		t.Fatalf("no event from the watch on %s within %s", what, pollTimeout)
	}
	return watch.Event{}
}
