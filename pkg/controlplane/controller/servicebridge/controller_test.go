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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

const ipv4, ipv6 = discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6

// bridgeName is the bridge kubectl-servicecidr creates.
const bridgeName = "kubernetes-renumber-bridge"

type step struct {
	what string
	do   func(ctx context.Context, t *testing.T, client *fake.Clientset)
	want []string
}

func createSlice(s *discoveryv1.EndpointSlice) func(context.Context, *testing.T, *fake.Clientset) {
	return func(ctx context.Context, t *testing.T, client *fake.Clientset) {
		if _, err := client.DiscoveryV1().EndpointSlices(s.Namespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func updateSlice(s *discoveryv1.EndpointSlice) func(context.Context, *testing.T, *fake.Clientset) {
	return func(ctx context.Context, t *testing.T, client *fake.Clientset) {
		if _, err := client.DiscoveryV1().EndpointSlices(s.Namespace).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func deleteSlice(name string) func(context.Context, *testing.T, *fake.Clientset) {
	return deleteSliceIn(metav1.NamespaceDefault, name)
}

func deleteSliceIn(namespace, name string) func(context.Context, *testing.T, *fake.Clientset) {
	return func(ctx context.Context, t *testing.T, client *fake.Clientset) {
		if err := client.DiscoveryV1().EndpointSlices(namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func createService(s *corev1.Service) func(context.Context, *testing.T, *fake.Clientset) {
	return func(ctx context.Context, t *testing.T, client *fake.Clientset) {
		if _, err := client.CoreV1().Services(s.Namespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func updateService(s *corev1.Service) func(context.Context, *testing.T, *fake.Clientset) {
	return func(ctx context.Context, t *testing.T, client *fake.Clientset) {
		if _, err := client.CoreV1().Services(s.Namespace).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func deleteService(name string) func(context.Context, *testing.T, *fake.Clientset) {
	return func(ctx context.Context, t *testing.T, client *fake.Clientset) {
		if err := client.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func both(fs ...func(context.Context, *testing.T, *fake.Clientset)) func(context.Context, *testing.T, *fake.Clientset) {
	return func(ctx context.Context, t *testing.T, client *fake.Clientset) {
		for _, f := range fs {
			f(ctx, t, client)
		}
	}
}

// TestController drives a running controller through the changes a renumber
// and the apiservers make, waiting after each for the bridges' slices.
func TestController(t *testing.T) {
	a, b, c := ep("192.0.2.1", false), ep("192.0.2.2", false), ep("192.0.2.3", false)
	a6 := ep("2001:db8::1", false)
	p1, p2, p3 := ep("198.18.0.1", false), ep("198.18.0.2", false), ep("198.18.0.3", false)
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "the bridge follows the apiservers' endpoints", steps: []step{
			{"created", both(createSlice(kubernetesSlice("kubernetes", ipv4, a, b)), createService(bridge("default", bridgeName, nil))),
				[]string{want(bridgeName, ipv4, a, b)}},
			{"an apiserver added", updateSlice(kubernetesSlice("kubernetes", ipv4, a, b, c)),
				[]string{want(bridgeName, ipv4, a, b, c)}},
			{"an apiserver terminating (KEP-1669)", updateSlice(kubernetesSlice("kubernetes", ipv4, a, ep("192.0.2.2", true), c)),
				[]string{want(bridgeName, ipv4, a, ep("192.0.2.2", true), c)}},
			{"that apiserver gone", updateSlice(kubernetesSlice("kubernetes", ipv4, a, c)),
				[]string{want(bridgeName, ipv4, a, c)}},
			{"no apiserver left", updateSlice(kubernetesSlice("kubernetes", ipv4)),
				[]string{want(bridgeName, ipv4)}},
		}},
		{name: "families added and removed", steps: []step{
			{"IPv4 only", both(createService(bridge("default", bridgeName, nil)), createSlice(kubernetesSlice("kubernetes", ipv4, a))),
				[]string{want(bridgeName, ipv4, a)}},
			{"IPv6 added", createSlice(kubernetesSlice("kubernetes-ipv6", ipv6, a6)),
				[]string{want(bridgeName, ipv4, a), want(bridgeName, ipv6, a6)}},
			{"IPv6 removed", deleteSlice("kubernetes-ipv6"),
				[]string{want(bridgeName, ipv4, a)}},
			{"IPv4 removed", deleteSlice("kubernetes"), nil},
		}},
		{name: "the bridge deleted", steps: []step{
			{"created", both(createSlice(kubernetesSlice("kubernetes", ipv4, a)), createService(bridge("default", bridgeName, nil))),
				[]string{want(bridgeName, ipv4, a)}},
			{"deleted", deleteService(bridgeName), nil},
			{"created again", createService(bridge("default", bridgeName, nil)),
				[]string{want(bridgeName, ipv4, a)}},
		}},
		{name: "the bridge stops being one", steps: []step{
			{"created", both(createSlice(kubernetesSlice("kubernetes", ipv4, a)), createService(bridge("default", bridgeName, nil))),
				[]string{want(bridgeName, ipv4, a)}},
			{"a selector added", updateService(bridge("default", bridgeName, func(s *corev1.Service) { s.Spec.Selector = map[string]string{"app": "x"} })), nil},
			{"the selector removed", updateService(bridge("default", bridgeName, nil)),
				[]string{want(bridgeName, ipv4, a)}},
			{"the label removed", updateService(bridge("default", bridgeName, func(s *corev1.Service) { s.Labels = nil })), nil},
		}},
		{name: "slices written by others are put back", steps: []step{
			{"created", both(createSlice(kubernetesSlice("kubernetes", ipv4, a)), createService(bridge("default", bridgeName, nil))),
				[]string{want(bridgeName, ipv4, a)}},
			{"endpoints edited", func(ctx context.Context, t *testing.T, client *fake.Clientset) {
				s, err := client.DiscoveryV1().EndpointSlices("default").Get(ctx, bridgeName, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				s.Endpoints, s.Ports = []discoveryv1.Endpoint{b}, httpsPort(1)
				updateSlice(s)(ctx, t, client)
			}, []string{want(bridgeName, ipv4, a)}},
			{"deleted", deleteSlice(bridgeName), []string{want(bridgeName, ipv4, a)}},
		}},
		{name: "two bridges", steps: []step{
			{"created", both(createSlice(kubernetesSlice("kubernetes", ipv4, a)), createService(bridge("default", bridgeName, nil)), createService(bridge("default", "other", nil))),
				[]string{want(bridgeName, ipv4, a), want("other", ipv4, a)}},
			{"an apiserver added", updateSlice(kubernetesSlice("kubernetes", ipv4, a, b)),
				[]string{want(bridgeName, ipv4, a, b), want("other", ipv4, a, b)}},
		}},
		{name: "a user Service's bridge copies each of its slices", steps: []step{
			{"created", both(createSlice(webSlice("web-aaaaa", 8080, p1, p2)), createSlice(webSlice("web-bbbbb", 9090, p3)), createService(webBridge())),
				[]string{webCopy("aaaaa", 8080, p1, p2), webCopy("bbbbb", 9090, p3)}},
			{"a pod gone from one slice", updateSlice(webSlice("web-aaaaa", 8080, p2)),
				[]string{webCopy("aaaaa", 8080, p2), webCopy("bbbbb", 9090, p3)}},
			{"the other slice deleted", deleteSliceIn("apps", "web-bbbbb"),
				[]string{webCopy("aaaaa", 8080, p2)}},
			{"a slice of another Service changes nothing", createSlice(slice("apps", "db", "db-ccccc", ipv4, tcpPort("db", 5432), p3)),
				[]string{webCopy("aaaaa", 8080, p2)}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := start(t)
			for _, s := range tc.steps {
				s.do(ctx, t, f.client)
				f.waitSlices(t, s.what, s.want...)
			}
		})
	}
}

// TestIgnored checks that Services which are not bridges, or bridge a Service
// without slices, get no slice: the one bridge's slice appearing says the
// controller has seen them all, then each is synced by hand.
func TestIgnored(t *testing.T) {
	ctx := context.Background()
	f := start(t)
	a := ep("192.0.2.1", false)
	ignored := []*corev1.Service{
		bridge("default", "with-selector", func(s *corev1.Service) { s.Spec.Selector = map[string]string{"app": "web"} }),
		// its namespace has no `kubernetes` Service
		bridge("apps", "other-namespace", nil),
		// web has no slices
		bridge("default", "bridge-of-web", func(s *corev1.Service) { s.Labels[BridgeLabel] = "web" }),
		// a bridge of itself
		bridge("default", "kubernetes", nil),
		bridge("default", "unlabeled", func(s *corev1.Service) { s.Labels = nil }),
		bridge("default", "external-name", func(s *corev1.Service) {
			s.Spec = corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.invalid"}
		}),
		bridge("default", "deleting", func(s *corev1.Service) {
			s.DeletionTimestamp, s.Finalizers = ptr.To(metav1.Now()), []string{"example.com/keep"}
		}),
	}
	createSlice(kubernetesSlice("kubernetes", ipv4, a))(ctx, t, f.client)
	for _, s := range ignored {
		createService(s)(ctx, t, f.client)
	}
	createService(bridge("default", bridgeName, nil))(ctx, t, f.client)
	f.waitSlices(t, "one bridge among Services that are not", want(bridgeName, ipv4, a))
	for _, s := range ignored {
		if err := f.ctrl.sync(ctx, s.Namespace+"/"+s.Name); err != nil {
			t.Errorf("sync %s/%s: %v", s.Namespace, s.Name, err)
		}
	}
	got, err := f.bridgeSlices(ctx)
	if err != nil || len(got) != 1 {
		t.Errorf("slices after syncing the Services that are not bridges: %v, %v; want only %s's", got, err, bridgeName)
	}
}

// TestWrittenAhead checks the slices kubectl-servicecidr writes before the
// bridge exists: left alone until it does, then adopted, then deleted with
// the bridge; and removed when the Service of their name is no bridge. The
// sentinel that says the controller has seen them is the "other" bridge's
// copy following a change of a `kubernetes` slice made after them: one
// informer delivers both, and the one worker takes keys in order.
func TestWrittenAhead(t *testing.T) {
	ctx := context.Background()
	f := start(t)
	p1, p2 := ep("198.18.0.1", false), ep("198.18.0.2", false)
	createSlice(kubernetesSlice("kubernetes", ipv4, p1))(ctx, t, f.client)
	createService(bridge("default", "other", nil))(ctx, t, f.client)
	f.waitSlices(t, "the sentinel bridge", want("other", ipv4, p1))

	createSlice(webSlice("web-aaaaa", 8080, p1))(ctx, t, f.client)
	ahead := Mirror("apps", webBridgeName, nil, "web", []*discoveryv1.EndpointSlice{webSlice("web-aaaaa", 8080, p1)})
	for _, m := range ahead {
		createSlice(m)(ctx, t, f.client)
	}
	updateSlice(kubernetesSlice("kubernetes", ipv4, p1, p2))(ctx, t, f.client)
	f.waitSlices(t, "written ahead of the bridge", describe(ahead[0]), want("other", ipv4, p1, p2))

	createService(webBridge())(ctx, t, f.client)
	f.waitSlices(t, "the bridge created", webCopy("aaaaa", 8080, p1), want("other", ipv4, p1, p2))

	if err := f.client.CoreV1().Services("apps").Delete(ctx, webBridgeName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.waitSlices(t, "the bridge deleted", want("other", ipv4, p1, p2))

	plain := webBridge()
	plain.Labels = nil
	createService(plain)(ctx, t, f.client)
	for _, m := range Mirror("apps", webBridgeName, nil, "web", []*discoveryv1.EndpointSlice{webSlice("web-aaaaa", 8080, p1)}) {
		createSlice(m)(ctx, t, f.client)
	}
	f.waitSlices(t, "written for a Service that is no bridge", want("other", ipv4, p1, p2))
}

// TestSliceName checks the copies' names: after their sources where it can,
// distinct where two sources would give one name, never too long.
func TestSliceName(t *testing.T) {
	long := strings.Repeat("x", 250)
	for _, tc := range []struct{ bridge, source, slice, want string }{
		{"kubernetes-renumber-bridge", "kubernetes", "kubernetes", "kubernetes-renumber-bridge"},
		{"kubernetes-renumber-bridge", "kubernetes", "kubernetes-ipv6", "kubernetes-renumber-bridge-ipv6"},
		{"web-renumber-bridge", "web", "web-x7k2p", "web-renumber-bridge-x7k2p"},
		{"web-renumber-bridge", "web", "webx", "web-renumber-bridge-webx"},
		{"web-renumber-bridge", "web", "hand-made", "web-renumber-bridge-hand-made"},
		{"web-renumber-bridge", "web", long, hashedName("web-renumber-bridge", long)},
	} {
		if got := SliceName(tc.bridge, tc.source, tc.slice); got != tc.want {
			t.Errorf("SliceName(%q, %q, %q) = %q, want %q", tc.bridge, tc.source, tc.slice, got, tc.want)
		}
	}
	// "web-x" and "x" both name web-renumber-bridge-x: the second in name order gets a hash.
	got := Mirror("apps", webBridgeName, nil, "web", []*discoveryv1.EndpointSlice{webSlice("x", 80), webSlice("web-x", 80)})
	if len(got) != 2 || got[0].Name != webBridgeName+"-x" || got[1].Name != hashedName(webBridgeName, "x") {
		t.Errorf("copies of web-x and x named %v, want %s-x and %s", names(got), webBridgeName, hashedName(webBridgeName, "x"))
	}
	for _, s := range got {
		if len(s.Name) > 253 {
			t.Errorf("copy name %q is longer than 253", s.Name)
		}
	}
}

func names(slices []*discoveryv1.EndpointSlice) []string {
	out := make([]string, 0, len(slices))
	for _, s := range slices {
		out = append(out, s.Name)
	}
	return out
}
