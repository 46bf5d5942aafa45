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
	"net/netip"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// pollTimeout bounds every wait for a controller to act.
const pollTimeout = 30 * time.Second

// defaultServiceCIDRName is the ServiceCIDR the apiserver creates from its flags (KEP-1880).
const defaultServiceCIDRName = "kubernetes"

func clusterIPService(name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{
			Type:  corev1.ServiceTypeClusterIP,
			Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}},
		},
	}
}

func createService(ctx context.Context, t *testing.T, client kubernetes.Interface, svc *corev1.Service) *corev1.Service {
	t.Helper()
	created, err := client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating Service %s: %v", svc.Name, err)
	}
	return created
}

// waitIPAddress waits for the IPAddress of ip, checks it points at the Service and returns it.
func waitIPAddress(ctx context.Context, t *testing.T, client kubernetes.Interface, ip string, svc *corev1.Service) *networkingv1.IPAddress {
	t.Helper()
	var got *networkingv1.IPAddress
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		a, err := client.NetworkingV1().IPAddresses().Get(ctx, ip, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		got = a
		return true, nil
	})
	if err != nil {
		t.Fatalf("no IPAddress %s for Service %s/%s: %v", ip, svc.Namespace, svc.Name, err)
	}
	ref := got.Spec.ParentRef
	if ref == nil || ref.Resource != "services" || ref.Namespace != svc.Namespace || ref.Name != svc.Name {
		t.Fatalf("IPAddress %s has parentRef %+v, want services %s/%s", ip, ref, svc.Namespace, svc.Name)
	}
	return got
}

func mustPrefix(t *testing.T, s string) netip.Prefix {
	t.Helper()
	p, err := netip.ParsePrefix(s)
	if err != nil {
		t.Fatalf("parsing %q: %v", s, err)
	}
	return p
}

func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatalf("parsing %q: %v", s, err)
	}
	return a
}

// waitKubernetesService waits for the kubernetes Service, which the apiserver
// creates after it reports ready, so tests that count a range's addresses
// start with its ClusterIP taken.
func waitKubernetesService(ctx context.Context, t *testing.T, client kubernetes.Interface) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		svc, err := client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil && svc.Spec.ClusterIP != "", nil
	})
	if err != nil {
		t.Fatalf("the kubernetes Service was not created: %v", err)
	}
}

// ipAddressOf is an IPAddress made by hand for ip, naming Service default/parent.
func ipAddressOf(ip, parent string) *networkingv1.IPAddress {
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: ip},
		Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{
			Resource: "services", Namespace: metav1.NamespaceDefault, Name: parent,
		}},
	}
}

// denyIPAddresses creates a ValidatingAdmissionPolicy named name on IPAddress
// requests of op, holding validations, and its Deny binding.
func denyIPAddresses(ctx context.Context, t *testing.T, client kubernetes.Interface, name string, op admissionregistrationv1.OperationType, validations ...admissionregistrationv1.Validation) {
	t.Helper()
	denyRequests(ctx, t, client, name, admissionregistrationv1.Rule{
		APIGroups: []string{"networking.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"ipaddresses"},
	}, op, validations...)
}

// denyRequests creates a ValidatingAdmissionPolicy named name on requests of
// op that rule matches, holding validations, and its Deny binding.
func denyRequests(ctx context.Context, t *testing.T, client kubernetes.Interface, name string, rule admissionregistrationv1.Rule, op admissionregistrationv1.OperationType, validations ...admissionregistrationv1.Validation) {
	t.Helper()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{op},
						Rule:       rule,
					},
				}},
			},
			Validations: validations,
		},
	}
	if _, err := client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating ValidatingAdmissionPolicy %s: %v", name, err)
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	if _, err := client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating ValidatingAdmissionPolicyBinding %s: %v", name, err)
	}
}
