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

package kubernetesservice

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestReshaped(t *testing.T) {
	single := func() *corev1.Service {
		return &corev1.Service{Spec: corev1.ServiceSpec{
			ClusterIP: "10.96.0.1", ClusterIPs: []string{"10.96.0.1"},
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, IPFamilyPolicy: ptrPolicy(corev1.IPFamilyPolicySingleStack),
		}}
	}
	type shape struct {
		policy     corev1.IPFamilyPolicy
		clusterIPs []string
		families   []corev1.IPFamily
	}
	dualShape := shape{corev1.IPFamilyPolicyRequireDualStack, []string{"10.96.0.1", "fd00:10:96::1"}, []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}}
	singleShape := shape{corev1.IPFamilyPolicySingleStack, []string{"10.96.0.1"}, []corev1.IPFamily{corev1.IPv4Protocol}}
	tests := []struct {
		name string
		svc  *corev1.Service
		dual bool
		want *shape // nil: unchanged
	}{
		{name: "single stays single", svc: single()},
		{name: "single to dual", svc: single(), dual: true, want: &dualShape},
		{name: "dual stays dual", svc: dualStackService(), dual: true},
		{name: "dual to single", svc: dualStackService(), want: &singleShape},
		{name: "dual with another secondary address is kept", dual: true, svc: func() *corev1.Service {
			s := dualStackService()
			s.Spec.ClusterIPs[1] = "fd00:10:96::99"
			return s
		}()},
		{name: "PreferDualStack with two addresses becomes RequireDualStack", dual: true, want: &dualShape, svc: func() *corev1.Service {
			s := dualStackService()
			s.Spec.IPFamilyPolicy = ptrPolicy(corev1.IPFamilyPolicyPreferDualStack)
			return s
		}()},
		{name: "PreferDualStack with one address becomes SingleStack", want: &singleShape, svc: func() *corev1.Service {
			s := single()
			s.Spec.IPFamilyPolicy = ptrPolicy(corev1.IPFamilyPolicyPreferDualStack)
			return s
		}()},
		{name: "headless is left alone", dual: true, svc: &corev1.Service{Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.svc.DeepCopy()
			got := reshaped(tc.svc, tc.dual, secondaryServiceIP)
			if !reflect.DeepEqual(tc.svc, before) {
				t.Errorf("reshaped changed its input")
			}
			if tc.want == nil {
				if got != nil {
					t.Fatalf("reshaped = %+v, want no change", got.Spec)
				}
				return
			}
			if got == nil {
				t.Fatalf("reshaped = no change, want %+v", *tc.want)
			}
			if have := (shape{*got.Spec.IPFamilyPolicy, got.Spec.ClusterIPs, got.Spec.IPFamilies}); !reflect.DeepEqual(have, *tc.want) {
				t.Errorf("reshaped = %+v, want %+v", have, *tc.want)
			}
			if got.Spec.ClusterIP != tc.svc.Spec.ClusterIP {
				t.Errorf("primary ClusterIP changed from %s to %s", tc.svc.Spec.ClusterIP, got.Spec.ClusterIP)
			}
		})
	}
}

// TestNewServiceIsUpstreams: the Service netfork creates single-stack is the
// one upstream's controller creates, with ClusterIPs and families filled in
// as the API would default them.
func TestNewServiceIsUpstreams(t *testing.T) {
	c := &Controller{Config: Config{ServiceIP: serviceIP, SecondaryServiceIP: secondaryServiceIP, ServicePort: 443, PublicServicePort: 6443, KubernetesServiceNodePort: 30443}}
	svc := c.newService(false)
	if svc.Namespace != metav1.NamespaceDefault || svc.Name != ServiceName {
		t.Errorf("created %s/%s", svc.Namespace, svc.Name)
	}
	if want := map[string]string{"provider": "kubernetes", "component": "apiserver"}; !reflect.DeepEqual(svc.Labels, want) {
		t.Errorf("labels %v, want %v", svc.Labels, want)
	}
	p := svc.Spec.Ports
	if len(p) != 1 || p[0].Name != "https" || p[0].Port != 443 || p[0].TargetPort.IntValue() != 6443 || p[0].NodePort != 30443 || p[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("ports %+v", p)
	}
	if svc.Spec.Type != corev1.ServiceTypeNodePort || svc.Spec.SessionAffinity != corev1.ServiceAffinityNone || svc.Spec.Selector != nil {
		t.Errorf("spec %+v", svc.Spec)
	}
	if *svc.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack || !reflect.DeepEqual(svc.Spec.ClusterIPs, []string{"10.96.0.1"}) {
		t.Errorf("single-stack Service has %s %v", *svc.Spec.IPFamilyPolicy, svc.Spec.ClusterIPs)
	}
	dual := c.newService(true)
	if *dual.Spec.IPFamilyPolicy != corev1.IPFamilyPolicyRequireDualStack || !reflect.DeepEqual(dual.Spec.ClusterIPs, []string{"10.96.0.1", "fd00:10:96::1"}) {
		t.Errorf("dual-stack Service has %s %v", *dual.Spec.IPFamilyPolicy, dual.Spec.ClusterIPs)
	}
}
