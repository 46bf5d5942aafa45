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
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/netfork/netfork/test/integration/framework"
)

// TestServesServiceCIDRsAndIPAddresses checks netfork serves the KEP-1880 API and
// bootstraps the cluster with it: the default ServiceCIDR holds both flag CIDRs,
// and the `kubernetes` Service has a ClusterIP backed by an IPAddress.
func TestServesServiceCIDRsAndIPAddresses(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t)

	resources, err := s.Client.Discovery().ServerResourcesForGroupVersion(networkingv1.SchemeGroupVersion.String())
	if err != nil {
		t.Fatalf("discovering %s: %v", networkingv1.SchemeGroupVersion, err)
	}
	var served []string
	for _, r := range resources.APIResources {
		served = append(served, r.Name)
	}
	for _, want := range []string{"servicecidrs", "servicecidrs/status", "ipaddresses"} {
		if !slices.Contains(served, want) {
			t.Errorf("%s does not serve %s; serves %v", networkingv1.SchemeGroupVersion, want, served)
		}
	}

	var cidr *networkingv1.ServiceCIDR
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		cidr, err = s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, defaultServiceCIDRName, metav1.GetOptions{})
		return err == nil && isReady(cidr), nil
	})
	if err != nil {
		t.Fatalf("the %q ServiceCIDR is not there and ready: %v (last seen %+v)", defaultServiceCIDRName, err, cidr)
	}
	if want := []string{"10.96.0.0/16", "fd00:10:96::/108"}; !slices.Equal(cidr.Spec.CIDRs, want) {
		t.Errorf("the %q ServiceCIDR has CIDRs %v, want %v", cidr.Name, cidr.Spec.CIDRs, want)
	}

	var svc *corev1.Service
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		svc, err = s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("the kubernetes Service was not created: %v", err)
	}
	if svc.Spec.ClusterIP != "10.96.0.1" {
		t.Errorf("the kubernetes Service has ClusterIP %q, want the first IP of the range, 10.96.0.1", svc.Spec.ClusterIP)
	}
	waitIPAddress(ctx, t, s.Client, svc.Spec.ClusterIP, svc)
}

// TestClusterIPServiceGetsIPAddress creates Services of each family and checks
// each ClusterIP is inside its range and has an IPAddress pointing back at it.
func TestClusterIPServiceGetsIPAddress(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t)

	requireDual := corev1.IPFamilyPolicyRequireDualStack
	tests := []struct {
		name     string
		mutate   func(*corev1.Service)
		wantCIDR []string
	}{
		{name: "single-stack", mutate: func(*corev1.Service) {}, wantCIDR: []string{"10.96.0.0/16"}},
		{name: "ipv6-only", mutate: func(svc *corev1.Service) {
			svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol}
		}, wantCIDR: []string{"fd00:10:96::/108"}},
		{name: "dual-stack", mutate: func(svc *corev1.Service) {
			svc.Spec.IPFamilyPolicy = &requireDual
		}, wantCIDR: []string{"10.96.0.0/16", "fd00:10:96::/108"}},
		{name: "requested-ip", mutate: func(svc *corev1.Service) {
			svc.Spec.ClusterIP = "10.96.200.10"
		}, wantCIDR: []string{"10.96.0.0/16"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := clusterIPService(tc.name)
			tc.mutate(svc)
			created := createService(ctx, t, s.Client, svc)
			if len(created.Spec.ClusterIPs) != len(tc.wantCIDR) {
				t.Fatalf("Service got ClusterIPs %v, want one in each of %v", created.Spec.ClusterIPs, tc.wantCIDR)
			}
			for i, ip := range created.Spec.ClusterIPs {
				if !mustPrefix(t, tc.wantCIDR[i]).Contains(mustAddr(t, ip)) {
					t.Errorf("ClusterIP %s is outside %s", ip, tc.wantCIDR[i])
				}
				waitIPAddress(ctx, t, s.Client, ip, created)
			}
			if svc.Spec.ClusterIP != "" && created.Spec.ClusterIP != svc.Spec.ClusterIP {
				t.Errorf("Service asked for ClusterIP %s and got %s", svc.Spec.ClusterIP, created.Spec.ClusterIP)
			}
		})
	}
}

func isReady(cidr *networkingv1.ServiceCIDR) bool {
	for _, c := range cidr.Status.Conditions {
		if c.Type == networkingv1.ServiceCIDRConditionReady {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}
