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

package servicebridge

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// fixture runs a Controller on a fake clientset until the test ends.
type fixture struct {
	client *fake.Clientset
	ctrl   *Controller
}

func start(t *testing.T) *fixture {
	t.Helper()
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	ctrl, err := New(client, factory.Core().V1().Services(), factory.Discovery().V1().EndpointSlices())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	factory.Start(ctx.Done())
	go func() {
		defer close(done)
		ctrl.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		factory.Shutdown()
	})
	return &fixture{client: client, ctrl: ctrl}
}

// ep is an endpoint with the conditions upstream's and netfork's reconcilers
// write: ready, or (KEP-1669) not ready but serving and terminating.
func ep(ip string, terminating bool) discoveryv1.Endpoint {
	if terminating {
		return discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false), Serving: ptr.To(true), Terminating: ptr.To(true)}}
	}
	return discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}
}

func httpsPort(port int32) []discoveryv1.EndpointPort {
	return []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(port), Protocol: ptr.To(corev1.ProtocolTCP)}}
}

// kubernetesService is the apiservers' Service, in namespace default.
const kubernetesService = "kubernetes"

// kubernetesSlice is a slice of the `kubernetes` Service as an apiserver writes it.
func kubernetesSlice(name string, t discoveryv1.AddressType, endpoints ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault, Labels: map[string]string{discoveryv1.LabelServiceName: kubernetesService}},
		AddressType: t,
		Endpoints:   endpoints,
		Ports:       httpsPort(6443),
	}
}

// slice is a slice of Service service, as kube-controller-manager writes it.
func slice(namespace, service, name string, t discoveryv1.AddressType, ports []discoveryv1.EndpointPort, endpoints ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{
			discoveryv1.LabelServiceName: service, discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io",
		}},
		AddressType: t,
		Endpoints:   endpoints,
		Ports:       ports,
	}
}

func tcpPort(name string, port int32) []discoveryv1.EndpointPort {
	return []discoveryv1.EndpointPort{{Name: ptr.To(name), Port: ptr.To(port), Protocol: ptr.To(corev1.ProtocolTCP)}}
}

// webBridgeName is the bridge of Service apps/web.
const webBridgeName = "web-renumber-bridge"

// webSlice is a slice of apps/web, whose pods listen on port.
func webSlice(name string, port int32, endpoints ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return slice("apps", "web", name, discoveryv1.AddressTypeIPv4, tcpPort("http", port), endpoints...)
}

// webBridge is apps/web's bridge.
func webBridge() *corev1.Service {
	return bridge("apps", webBridgeName, func(s *corev1.Service) {
		s.Labels[BridgeLabel] = "web"
		s.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}}
	})
}

// webCopy is what the bridge's copy of web-<suffix> must be.
func webCopy(suffix string, port int32, endpoints ...discoveryv1.Endpoint) string {
	return wantCopy("apps", webBridgeName, webBridgeName+"-"+suffix, discoveryv1.AddressTypeIPv4, tcpPort("http", port), endpoints...)
}

// bridge is a selectorless Service labeled as a bridge of `kubernetes`, as kubectl-servicecidr makes it.
func bridge(namespace, name string, mutate func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{BridgeLabel: kubernetesService}},
		Spec: corev1.ServiceSpec{
			Type:       corev1.ServiceTypeClusterIP,
			ClusterIP:  "10.96.0.1",
			ClusterIPs: []string{"10.96.0.1"},
			Ports:      []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(6443), Protocol: corev1.ProtocolTCP}},
		},
	}
	if mutate != nil {
		mutate(s)
	}
	return s
}

// describe is a slice as the tests compare it: namespace, name, labels, owner, type,
// ports and endpoints with their conditions.
func describe(s *discoveryv1.EndpointSlice) string {
	var owners []string
	for _, o := range s.OwnerReferences {
		owners = append(owners, fmt.Sprintf("%s/%s/%s/controller=%t/block=%t", o.Kind, o.Name, o.UID, ptr.Deref(o.Controller, false), ptr.Deref(o.BlockOwnerDeletion, false)))
	}
	var ports []string
	for _, p := range s.Ports {
		ports = append(ports, fmt.Sprintf("%s:%d/%s", ptr.Deref(p.Name, ""), ptr.Deref(p.Port, 0), ptr.Deref(p.Protocol, "")))
	}
	var eps []string
	for _, e := range s.Endpoints {
		c := e.Conditions
		eps = append(eps, fmt.Sprintf("%s(ready=%v,serving=%v,terminating=%v)", strings.Join(e.Addresses, "+"), fmtBool(c.Ready), fmtBool(c.Serving), fmtBool(c.Terminating)))
	}
	return fmt.Sprintf("%s/%s service-name=%s managed-by=%s owner=%s %s ports=%s endpoints=%s", s.Namespace, s.Name,
		s.Labels[discoveryv1.LabelServiceName], s.Labels[discoveryv1.LabelManagedBy], strings.Join(owners, ","),
		s.AddressType, strings.Join(ports, ","), strings.Join(eps, ","))
}

func fmtBool(b *bool) string {
	if b == nil {
		return "unset"
	}
	return fmt.Sprint(*b)
}

// want is what the copy of the `kubernetes` slice of type t (named
// kubernetes or kubernetes-ipv6, as the apiservers name them) for the bridge
// in default must be.
func want(bridge string, t discoveryv1.AddressType, endpoints ...discoveryv1.Endpoint) string {
	slice := kubernetesService
	if t == ipv6 {
		slice += "-ipv6"
	}
	return wantCopy(metav1.NamespaceDefault, bridge, SliceName(bridge, kubernetesService, slice), t, httpsPort(6443), endpoints...)
}

// wantCopy is what a bridge's copy named name must be, owned by the bridge.
func wantCopy(namespace, bridge, name string, t discoveryv1.AddressType, ports []discoveryv1.EndpointPort, endpoints ...discoveryv1.Endpoint) string {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: namespace,
			Labels: map[string]string{discoveryv1.LabelServiceName: bridge, discoveryv1.LabelManagedBy: ManagedBy},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: bridge, UID: types.UID("uid-" + bridge),
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
		},
		AddressType: t,
		Endpoints:   endpoints,
		Ports:       ports,
	}
	return describe(s)
}

// bridgeSlices describes every slice the controller manages, sorted.
func (f *fixture) bridgeSlices(ctx context.Context) ([]string, error) {
	l, err := f.client.DiscoveryV1().EndpointSlices(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelManagedBy + "=" + ManagedBy})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l.Items))
	for i := range l.Items {
		out = append(out, describe(&l.Items[i]))
	}
	sort.Strings(out)
	return out, nil
}

// waitSlices waits until the managed slices are exactly wanted.
func (f *fixture) waitSlices(t *testing.T, what string, wanted ...string) {
	t.Helper()
	sort.Strings(wanted)
	var got []string
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		got, err = f.bridgeSlices(ctx)
		return err == nil && strings.Join(got, "\n") == strings.Join(wanted, "\n"), nil
	})
	if err != nil {
		t.Fatalf("%s: the bridges' slices are\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(wanted, "\n  "))
	}
}
