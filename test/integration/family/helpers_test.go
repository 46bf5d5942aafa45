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

package family

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/featuregate"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/test/integration/framework"
)

const (
	v4Range = "10.96.0.0/16"
	v6Range = "fd00:10:96::/108"
	// v4Advertised and v6Advertised are the apiserver's --advertise-address,
	// which the lease reconciler publishes in the `kubernetes` EndpointSlices.
	v4Advertised = "198.18.0.11"
	v6Advertised = "fd4e:6574:666b:1::11"
	appsNS       = "apps"
)

// withTestGracePeriod makes a rolled-back or replaced ServiceCIDR go, and the
// `kubernetes` Service follow the apiservers, within seconds.
var withTestGracePeriod = framework.WithShortIntervals()

// start starts a netfork apiserver with DualStackAPIServer on, on the
// cluster at prefix, serving ranges and advertising advertised.
func start(t *testing.T, prefix, ranges, advertised string) *framework.APIServer {
	t.Helper()
	return framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix), withTestGracePeriod,
		framework.WithFeatureGates(map[featuregate.Feature]bool{features.DualStackAPIServer: true}),
		framework.WithFlags("--service-cluster-ip-range="+ranges, "--endpoint-reconciler-type=lease", "--advertise-address="+advertised))
}

// waitFor polls cond for a minute and fails naming what it waited for.
func waitFor(ctx context.Context, t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// svc is framework.Service, the fixtures' builder.
var svc = framework.Service

// fixture are the Services the test converts, and one it must leave alone.
func fixture() []*corev1.Service {
	return []*corev1.Service{
		svc("default", "web", nil),
		svc("default", "np", func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort }),
		svc("default", "hl", func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone }),
		svc("default", "prefer", func(s *corev1.Service) { s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyPreferDualStack) }),
		svc("default", "ext", func(s *corev1.Service) {
			s.Spec.Type, s.Spec.ExternalName, s.Spec.Selector = corev1.ServiceTypeExternalName, "example.invalid", nil
		}),
		svc(appsNS, "a1", nil),
	}
}

// converted are the fixture Services dual-stack and single-stack change.
var converted = []string{"apps/a1", "default/hl", "default/np", "default/prefer", "default/web"}

func getService(ctx context.Context, t *testing.T, client kubernetes.Interface, key string) *corev1.Service {
	t.Helper()
	ns, name, _ := strings.Cut(key, "/")
	s, err := client.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading Service %s: %v", key, err)
	}
	return s
}

// ipAddressOf tells whether the IPAddress ip exists with Service key as its parent.
func ipAddressOf(ctx context.Context, client kubernetes.Interface, ip, key string) (bool, error) {
	a, err := client.NetworkingV1().IPAddresses().Get(ctx, ip, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	p := a.Spec.ParentRef
	return p != nil && p.Resource == "services" && p.Namespace+"/"+p.Name == key, nil
}

// checkAddresses fails unless every IPAddress belongs to a Service that
// holds it, and every ClusterIP has its IPAddress: none orphaned, none missing.
func checkAddresses(ctx context.Context, t *testing.T, client kubernetes.Interface) {
	t.Helper()
	svcs, err := client.CoreV1().Services("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]string{}
	for _, s := range svcs.Items {
		for _, ip := range s.Spec.ClusterIPs {
			if ip != corev1.ClusterIPNone {
				held[ip] = s.Namespace + "/" + s.Name
			}
		}
	}
	ips, err := client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range ips.Items {
		p := a.Spec.ParentRef
		if p == nil || held[a.Name] != p.Namespace+"/"+p.Name {
			t.Errorf("IPAddress %s (parent %+v) is held by no Service", a.Name, p)
		}
		delete(held, a.Name)
	}
	for ip, key := range held {
		t.Errorf("Service %s holds %s without an IPAddress", key, ip)
	}
}

// kubernetesSlices are the address types of the `kubernetes` Service's EndpointSlices.
func kubernetesSlices(ctx context.Context, client kubernetes.Interface) (map[discoveryv1.AddressType][]string, error) {
	l, err := client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=kubernetes"})
	if err != nil {
		return nil, err
	}
	out := map[discoveryv1.AddressType][]string{}
	for _, s := range l.Items {
		for _, e := range s.Endpoints {
			out[s.AddressType] = append(out[s.AddressType], e.Addresses...)
		}
	}
	return out, nil
}

func isIPv6(ip string) bool {
	a, err := netip.ParseAddr(ip)
	return err == nil && a.Is6()
}
