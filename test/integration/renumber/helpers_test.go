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

package renumber

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/pkg/controlplane/apiserverranges"
	"github.com/netfork/netfork/pkg/controlplane/controller/servicebridge"
	"github.com/netfork/netfork/pkg/servicecidr/renumber"
	"github.com/netfork/netfork/test/integration/framework"
)

const (
	// oldRange is the framework's --service-cluster-ip-range; target the range renumbered to.
	oldRange = framework.DefaultServiceCIDRs
	target   = "10.200.0.0/16,fd00:10:200::/108"
	appsNS   = "apps"
)

// shortSync is the kube-proxy sync period the kill, rollback and refusal tests
// move Services with: windows keep every step (pause, primer, settle, budget) at
// a third of their cost at the default period, which TestRenumberMixedServices
// moves at and logs the cost of.
const shortSync = 100 * time.Millisecond

// withTestGracePeriod makes a rolled-back or replaced ServiceCIDR go, and the
// `kubernetes` Service follow the apiservers, within seconds.
var withTestGracePeriod = framework.WithShortIntervals()

// advertised is the rolled apiservers' --advertise-address: the lease
// reconciler publishes it in the `kubernetes` EndpointSlice (a loopback
// address may not be an endpoint), for the bridge controller to copy.
const advertised = "198.18.0.10"

// startRolled starts an apiserver on prefix serving ranges, with the lease
// endpoint reconciler, and a serving certificate that also names sans.
func startRolled(t *testing.T, prefix, ranges string, sans ...string) *framework.APIServer {
	t.Helper()
	return framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix), withTestGracePeriod, framework.WithServingIPs(sans...),
		framework.WithFlags("--service-cluster-ip-range="+ranges, "--endpoint-reconciler-type=lease", "--advertise-address="+advertised))
}

// targetSANs are the `kubernetes` Service's addresses in the target, which the
// apiservers' certificates must name before a renumber.
var targetSANs = []string{"10.200.0.1", "fd00:10:200::1"}

// waitServiceCIDRGone waits until the ServiceCIDR name no longer exists.
func waitServiceCIDRGone(ctx context.Context, t *testing.T, client kubernetes.Interface, name string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("ServiceCIDR %s is still there: %v", name, err)
	}
}

func mustRanges(t *testing.T, s string) renumber.Ranges {
	t.Helper()
	r, err := renumber.ParseRanges(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// markRolled writes on every apiserver identity Lease the annotation a rolled
// netfork apiserver writes: that it serves ranges.
func markRolled(ctx context.Context, t *testing.T, client kubernetes.Interface, ranges string) {
	t.Helper()
	var leases []string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		l, err := client.CoordinationV1().Leases(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{LabelSelector: "apiserver.kubernetes.io/identity=kube-apiserver"})
		if err != nil || len(l.Items) == 0 {
			return false, nil
		}
		leases = nil
		for _, x := range l.Items {
			leases = append(leases, x.Name)
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("no apiserver identity Lease: %v", err)
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, apiserverranges.Annotation, ranges)
	for _, name := range leases {
		if _, err := client.CoordinationV1().Leases(metav1.NamespaceSystem).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatalf("annotating Lease %s: %v", name, err)
		}
	}
}

func createNamespace(ctx context.Context, t *testing.T, client kubernetes.Interface, name string) {
	t.Helper()
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// svc is framework.Service, the fixtures' builder.
var svc = framework.Service

// mixedServices are Services of every kind the renumber meets; the tests create them in
// namespaces default, apps and kube-system.
func mixedServices(owner *corev1.ConfigMap) []*corev1.Service {
	dual := func(p corev1.IPFamilyPolicy) func(*corev1.Service) {
		return func(s *corev1.Service) { s.Spec.IPFamilyPolicy = ptr.To(p) }
	}
	return []*corev1.Service{
		svc("default", "c1", nil),
		svc("default", "c2", nil),
		svc("default", "c3", func(s *corev1.Service) { s.Spec.Selector = nil }),
		svc("default", "hand", func(s *corev1.Service) { s.Spec.ClusterIP = "10.96.0.77" }),
		svc("default", "hand6", func(s *corev1.Service) {
			s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol}
			s.Spec.ClusterIP = "fd00:10:96::99"
		}),
		svc("default", "np", func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeNodePort
			s.Spec.Ports[0].NodePort = 30080
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		}),
		svc("default", "np2", func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort }),
		svc("default", "ds", dual(corev1.IPFamilyPolicyRequireDualStack)),
		svc("default", "ds-hand", func(s *corev1.Service) {
			s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyPreferDualStack)
			s.Spec.ClusterIPs = []string{"10.96.1.5", "fd00:10:96::1:5"}
			s.Spec.ClusterIP = "10.96.1.5"
		}),
		svc("default", "headless", func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone }),
		svc("default", "headless-ds", func(s *corev1.Service) {
			s.Spec.ClusterIP = corev1.ClusterIPNone
			s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyRequireDualStack)
		}),
		svc("default", "ext", func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeExternalName
			s.Spec.ExternalName = "example.invalid"
			s.Spec.Selector = nil
		}),
		svc("default", "owned", func(s *corev1.Service) {
			s.Labels["tier"] = "backend"
			s.Annotations = map[string]string{"example.com/note": "kept"}
			s.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}
			s.Finalizers = []string{"example.com/keep"}
			s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
			s.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](600)}}
			s.Spec.PublishNotReadyAddresses = true
			s.Spec.InternalTrafficPolicy = ptr.To(corev1.ServiceInternalTrafficPolicyLocal)
			s.Spec.ExternalIPs = []string{"192.0.2.10"}
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, AppProtocol: ptr.To("dns")})
		}),
		svc("kube-system", "kube-dns", func(s *corev1.Service) {
			s.Labels = map[string]string{"k8s-app": "kube-dns"}
			s.Spec.Selector = map[string]string{"k8s-app": "kube-dns"}
			s.Spec.ClusterIP = "10.96.0.10"
			s.Spec.Ports = []corev1.ServicePort{{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}, {Name: "dns-tcp", Port: 53, Protocol: corev1.ProtocolTCP}}
		}),
		svc(appsNS, "a1", nil),
		svc(appsNS, "a2", dual(corev1.IPFamilyPolicyPreferDualStack)),
		svc(appsNS, "a3", func(s *corev1.Service) { s.Spec.ClusterIP = "10.96.200.1" }),
		svc(appsNS, strings.Repeat("long", 15), nil),
		svc(appsNS, "a5", func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeNodePort
			s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyRequireDualStack)
		}),
		svc(appsNS, "a6", func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone; s.Spec.Selector = nil }),
	}
}

// fewServices are one Service of each kind a renumber moves or skips, for the
// tests that run it many times.
func fewServices(*corev1.ConfigMap) []*corev1.Service {
	all := mixedServices(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", UID: "none"}})
	var out []*corev1.Service
	for _, s := range all {
		switch s.Namespace + "/" + s.Name {
		case "default/c1", "default/hand", "default/np", "default/ds", "default/headless", "kube-system/kube-dns":
			out = append(out, s)
		}
	}
	return out
}

// rolledCluster starts an apiserver on the old range, makes the fixture, and
// rolls it (a restart on the same etcd) to serve the target range.
func rolledCluster(ctx context.Context, t *testing.T, services func(owner *corev1.ConfigMap) []*corev1.Service) (*framework.APIServer, *fixture) {
	t.Helper()
	prefix := framework.NewEtcdPrefix(t)
	old := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix))
	f := newFixture(ctx, t, old.Client, services)
	old.Stop()
	s := startRolled(t, prefix, target, targetSANs...)
	markRolled(ctx, t, s.Client, target)
	f.client = s.Client
	return s, f
}

const kubeadmConfig = `apiServer: {}
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
networking:
  dnsDomain: cluster.local
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/16,fd00:10:96::/108
`

const kubeletConfig = `apiVersion: kubelet.config.k8s.io/v1beta1
clusterDNS:
- 10.96.0.10
clusterDomain: cluster.local
kind: KubeletConfiguration
`

// cluster is what a test makes before it renumbers: Services of every kind,
// kubeadm's ConfigMaps and a node.
type fixture struct {
	client   kubernetes.Interface
	services map[string]*corev1.Service
}

func newFixture(ctx context.Context, t *testing.T, client kubernetes.Interface, services func(owner *corev1.ConfigMap) []*corev1.Service) *fixture {
	t.Helper()
	// The renumber moves the kubernetes Service from the old range: it must be there before the apiserver rolls.
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		k, err := client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil && equalStrings(k.Spec.ClusterIPs, []string{"10.96.0.1"}), nil
	})
	if err != nil {
		t.Fatalf("the apiserver did not create the kubernetes Service at 10.96.0.1: %v", err)
	}
	createNamespace(ctx, t, client, appsNS)
	owner, err := client.CoreV1().ConfigMaps(metav1.NamespaceDefault).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]map[string]string{
		"kubeadm-config": {"ClusterConfiguration": kubeadmConfig},
		"kubelet-config": {"kubelet": kubeletConfig},
	} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceSystem}, Data: data}
		if _, err := client.CoreV1().ConfigMaps(metav1.NamespaceSystem).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}, Spec: corev1.NodeSpec{PodCIDR: "10.244.1.0/24", PodCIDRs: []string{"10.244.1.0/24"}}}
	node, err = client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "172.18.0.2"}}
	if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f := &fixture{client: client, services: map[string]*corev1.Service{}}
	for _, s := range services(owner) {
		created, err := client.CoreV1().Services(s.Namespace).Create(ctx, s, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating Service %s/%s: %v", s.Namespace, s.Name, err)
		}
		f.services[s.Namespace+"/"+s.Name] = created
		createSlices(ctx, t, client, created, len(f.services))
	}
	return f
}

// withoutClusterIPs is a Service's identity, metadata and spec, less what a renumber changes.
type serviceShape struct {
	UID             types.UID
	Labels          map[string]string
	Annotations     map[string]string
	OwnerReferences []metav1.OwnerReference
	Finalizers      []string
	Spec            corev1.ServiceSpec
}

func shapeOf(s *corev1.Service) serviceShape {
	spec := *s.Spec.DeepCopy()
	spec.ClusterIP, spec.ClusterIPs = "", nil
	return serviceShape{UID: s.UID, Labels: s.Labels, Annotations: s.Annotations, OwnerReferences: s.OwnerReferences, Finalizers: s.Finalizers, Spec: spec}
}

// checkKept fails unless every fixture Service exists with its UID and every
// field but its ClusterIPs as created; it returns the live ones.
func (f *fixture) checkKept(ctx context.Context, t *testing.T) map[string]*corev1.Service {
	t.Helper()
	live := map[string]*corev1.Service{}
	for key, want := range f.services {
		got, err := f.client.CoreV1().Services(want.Namespace).Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("Service %s: %v", key, err)
			continue
		}
		if g, w := shapeOf(got), shapeOf(want); !reflect.DeepEqual(g, w) {
			t.Errorf("Service %s changed beyond its ClusterIPs:\n got %+v\nwant %+v", key, g, w)
		}
		live[key] = got
	}
	return live
}

// snapshot maps every object a renumber may change to its resourceVersion
// or, byContent, to what a rollback must restore: each Service's shape,
// ClusterIPs and field managers, the ConfigMaps' data, the IPAddresses' owners.
func snapshot(ctx context.Context, t *testing.T, client kubernetes.Interface, byContent bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	svcs, err := client.CoreV1().Services("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range svcs.Items {
		s := &svcs.Items[i]
		out["service/"+s.Namespace+"/"+s.Name] = s.ResourceVersion
		if byContent && s.Namespace == metav1.NamespaceDefault && s.Name == "kubernetes" {
			// a rollback past its move has the apiservers recreate it: a new object at the old address
			out["service/default/kubernetes"] = fmt.Sprint(s.Spec.ClusterIPs)
			continue
		}
		if byContent {
			shape, err := json.Marshal(shapeOf(s))
			if err != nil {
				t.Fatal(err)
			}
			out["service/"+s.Namespace+"/"+s.Name] = fmt.Sprintf("%s %v %s", shape, s.Spec.ClusterIPs, managers(s))
		}
	}
	cms, err := client.CoreV1().ConfigMaps(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cms.Items {
		if c.Name == "extension-apiserver-authentication" {
			continue // the apiserver's own, written at each start with its PKI
		}
		out["configmap/"+c.Name] = c.ResourceVersion
		if byContent {
			out["configmap/"+c.Name] = fmt.Sprint(c.Data)
		}
	}
	cidrs, err := client.NetworkingV1().ServiceCIDRs().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cidrs.Items {
		out["servicecidr/"+c.Name] = fmt.Sprint(c.DeletionTimestamp != nil, c.Spec.CIDRs)
	}
	ips, err := client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ip := range ips.Items {
		out["ipaddress/"+ip.Name] = ip.ResourceVersion
		if byContent {
			out["ipaddress/"+ip.Name] = fmt.Sprintf("%+v", *ip.Spec.ParentRef)
		}
	}
	return out
}

// diffSnapshots lists the keys whose values differ between a and b.
func diffSnapshots(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if b[k] != v {
			d = append(d, fmt.Sprintf("%s: %q -> %q", k, v, b[k]))
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			d = append(d, fmt.Sprintf("%s: new %q", k, v))
		}
	}
	sort.Strings(d)
	return d
}

// createSlices gives a Service with ClusterIPs one EndpointSlice per IP
// family, as kube-controller-manager would (there is none here), with one
// endpoint numbered n, for its bridge to copy.
func createSlices(ctx context.Context, t *testing.T, client kubernetes.Interface, svc *corev1.Service, n int) {
	t.Helper()
	if len(svc.Spec.ClusterIPs) == 0 || svc.Spec.ClusterIPs[0] == corev1.ClusterIPNone {
		return
	}
	var ports []discoveryv1.EndpointPort
	for _, p := range svc.Spec.Ports {
		port := int32(p.TargetPort.IntValue())
		if port == 0 {
			port = p.Port
		}
		ports = append(ports, discoveryv1.EndpointPort{Name: ptr.To(p.Name), Port: ptr.To(port), Protocol: ptr.To(p.Protocol)})
	}
	for _, family := range svc.Spec.IPFamilies {
		t6, ip := discoveryv1.AddressTypeIPv4, fmt.Sprintf("198.18.0.%d", n)
		if family == corev1.IPv6Protocol {
			t6, ip = discoveryv1.AddressTypeIPv6, fmt.Sprintf("fd00:198:18::%d", n)
		}
		s := &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{
				Name: svc.Name + "-" + strings.ToLower(string(family)), Namespace: svc.Namespace,
				Labels:          map[string]string{discoveryv1.LabelServiceName: svc.Name, discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(svc, corev1.SchemeGroupVersion.WithKind("Service"))},
			},
			AddressType: t6,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
			Ports:       ports,
		}
		if _, err := client.DiscoveryV1().EndpointSlices(svc.Namespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating EndpointSlice %s/%s: %v", s.Namespace, s.Name, err)
		}
	}
}

// unowned counts the EndpointSlices written for the bridge namespace/name
// that have no owner: the apiserver has not adopted them.
func unowned(ctx context.Context, t *testing.T, client kubernetes.Interface, namespace, name string) int {
	t.Helper()
	l, err := client.DiscoveryV1().EndpointSlices(namespace).List(ctx, metav1.ListOptions{LabelSelector: servicebridge.Selector(name).String()})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range l.Items {
		if len(s.OwnerReferences) == 0 {
			n++
		}
	}
	return n
}

// endpointsByType describes the EndpointSlices of Service name in namespace
// default (managed by managedBy, when set) per address type.
func endpointsByType(ctx context.Context, client kubernetes.Interface, name, managedBy string) (map[discoveryv1.AddressType]string, error) {
	return endpointsIn(ctx, client, metav1.NamespaceDefault, name, managedBy)
}

// endpointsIn describes the EndpointSlices of Service namespace/name (managed
// by managedBy, when set) per address type: each endpoint with its
// conditions, and the ports.
func endpointsIn(ctx context.Context, client kubernetes.Interface, namespace, name, managedBy string) (map[discoveryv1.AddressType]string, error) {
	selector := discoveryv1.LabelServiceName + "=" + name
	if managedBy != "" {
		selector += "," + discoveryv1.LabelManagedBy + "=" + managedBy
	}
	l, err := client.DiscoveryV1().EndpointSlices(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	out := map[discoveryv1.AddressType]string{}
	for _, s := range l.Items {
		var parts []string
		for _, e := range s.Endpoints {
			c := e.Conditions
			parts = append(parts, fmt.Sprintf("%v ready=%v serving=%v terminating=%v", e.Addresses, ptr.Deref(c.Ready, false), ptr.Deref(c.Serving, false), ptr.Deref(c.Terminating, false)))
		}
		for _, p := range s.Ports {
			parts = append(parts, fmt.Sprintf("port %s %d", ptr.Deref(p.Name, ""), ptr.Deref(p.Port, 0)))
		}
		out[s.AddressType] += strings.Join(parts, "; ")
	}
	return out, nil
}

// checkKubernetesMoved fails unless the kubernetes Service is at the target's
// first address and its bridge holds oldIPs with the apiserver's endpoints,
// copied by the apiserver's service-bridge controller; it returns the bridge.
func checkKubernetesMoved(ctx context.Context, t *testing.T, client kubernetes.Interface, oldIPs []string) *corev1.Service {
	t.Helper()
	k, err := client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil || !equalStrings(k.Spec.ClusterIPs, []string{"10.200.0.1"}) {
		t.Fatalf("Service default/kubernetes after the renumber: %v, %v; want it at 10.200.0.1", k.Spec.ClusterIPs, err)
	}
	b, err := client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, renumber.KubernetesBridgeName, metav1.GetOptions{})
	if err != nil || b.Labels[renumber.BridgeLabel] != "kubernetes" || len(b.Spec.Selector) != 0 || !equalStrings(b.Spec.ClusterIPs, oldIPs) ||
		len(b.Spec.Ports) != 1 || b.Spec.Ports[0].Port != 443 || b.Spec.Ports[0].Name != "https" {
		t.Fatalf("bridge of the kubernetes Service: %+v, %v; want it selectorless at %v with port https 443", b, err, oldIPs)
	}
	var src, dst map[discoveryv1.AddressType]string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		if src, err = endpointsByType(ctx, client, "kubernetes", ""); err != nil {
			return false, err
		}
		if dst, err = endpointsByType(ctx, client, b.Name, servicebridge.ManagedBy); err != nil {
			return false, err
		}
		return reflect.DeepEqual(src, dst) && strings.Contains(src[discoveryv1.AddressTypeIPv4], "["+advertised+"] ready=true"), nil
	})
	if err != nil {
		t.Fatalf("the bridge's EndpointSlices %v, the kubernetes Service's %v: want the same, with %s ready", dst, src, advertised)
	}
	return b
}

// recordedState is the renumber's record.
func recordedState(ctx context.Context, t *testing.T, client kubernetes.Interface) *renumber.State {
	t.Helper()
	st, err := renumber.Recorded(ctx, client)
	if err != nil || st == nil {
		t.Fatalf("the renumber's record: %+v, %v", st, err)
	}
	return st
}
