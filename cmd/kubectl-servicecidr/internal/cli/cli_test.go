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

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/pkg/controlplane/apiserverranges"
	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

const target = "10.200.0.0/16"

// fakeCluster is a cluster on 10.96.0.0/16 with one Service, served by one
// apiserver rolled to the target.
func fakeCluster() *fake.Clientset {
	return fake.NewClientset(
		&networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.96.0.0/16"}}},
		&coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: "apiserver-a", Namespace: "kube-system",
				Labels:      map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver"},
				Annotations: map[string]string{apiserverranges.Annotation: target}},
			Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To[int32](3600), RenewTime: &metav1.MicroTime{Time: time.Now()}},
		},
		&corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "u1"},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.3.4", ClusterIPs: []string{"10.96.3.4"}},
		},
	)
}

func runWith(t *testing.T, client kubernetes.Interface, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut, func(*options) (kubernetes.Interface, *rest.Config, error) { return client, nil, nil })
	return out.String(), errOut.String(), code
}

func TestPlanOutputs(t *testing.T) {
	client := fakeCluster()
	out, errOut, code := runWith(t, client, "plan", "--to", target, "-o", "json")
	if code != 0 {
		t.Fatalf("plan -o json: exit %d, %s", code, errOut)
	}
	var pl renumber.Plan
	if err := json.Unmarshal([]byte(out), &pl); err != nil {
		t.Fatalf("plan -o json printed %q: %v", out, err)
	}
	if len(pl.Services) != 1 || pl.Services[0].Disposition != renumber.Move || strings.Join(pl.Services[0].NewClusterIPs, ",") != "10.200.3.4" {
		t.Errorf("plan services %+v; want web moved to 10.200.3.4", pl.Services)
	}
	out, _, code = runWith(t, client, "plan", "--to", target, "-o", "yaml")
	if code != 0 || !strings.Contains(out, "disposition: move") {
		t.Errorf("plan -o yaml: exit %d, %q", code, out)
	}
	out, _, code = runWith(t, client, "plan", "--to", target)
	if code != 0 || !strings.Contains(out, "Steps:") || !strings.Contains(out, "web-renumber-bridge.default.svc.cluster.local") {
		t.Errorf("plan: exit %d, %q", code, out)
	}
}

// TestDryRunChangesNothing runs renumber --dry-run and checks the client saw
// only reads.
func TestDryRunChangesNothing(t *testing.T) {
	client := fakeCluster()
	client.ClearActions()
	out, errOut, code := runWith(t, client, "renumber", "--to", target, "--dry-run")
	if code != 0 || !strings.Contains(out, "Steps:") {
		t.Fatalf("renumber --dry-run: exit %d, %q %q", code, out, errOut)
	}
	for _, a := range client.Actions() {
		if v := a.GetVerb(); v != "get" && v != "list" {
			t.Errorf("renumber --dry-run made a %s of %s", v, a.GetResource().Resource)
		}
	}
}

func TestBadInputIsOneLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--to", "10.0.0.0/33"}, `kubectl-servicecidr plan: --to: "10.0.0.0/33" is not a CIDR`},
		{[]string{"plan", "--to", "10.0.0.1/16"}, "has host bits set (the network is 10.0.0.0/16)"},
		{[]string{"plan", "--to", target, "-o", "wide"}, `-o "wide": want yaml or json`},
		{[]string{"plan", "-n", "default", "--to", target}, "-n/--namespace: a renumber is cluster-wide"},
		{[]string{"renumber", "--dry-run=maybe", "--to", target}, `--dry-run "maybe": want none, client or server`},
		{[]string{"renumber", "--to", "10.96.0.0/24"}, "overlaps the Service range 10.96.0.0/16"},
		{[]string{"rollback", "--kube-proxy-sync-period=-1s"}, "--kube-proxy-sync-period -1s: want 0 or more"},
		{[]string{"finish", "--retries=-1"}, "--retries -1: want 0 or more"},
		{[]string{"renumber", "--kube-proxy-sync-period=soon", "--to", target}, `invalid argument "soon" for "--kube-proxy-sync-period"`},
		{[]string{"finish"}, "no renumber recorded in ConfigMap kube-system/servicecidr-renumber"},
		{[]string{"plan", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"dual-stack"}, "kubectl-servicecidr dual-stack: ServiceCIDR kubernetes has one CIDR (10.96.0.0/16): roll every apiserver to two ranges first"},
		{[]string{"dual-stack", "--policy", "SingleStack"}, `--policy "SingleStack": want PreferDualStack or RequireDualStack`},
		{[]string{"single-stack", "--dry-run=maybe"}, `--dry-run "maybe": want none, client or server`},
		{[]string{"single-stack", "-l", "app in ("}, `-l/--selector "app in ("`},
		{[]string{"replace-default", "-n", "default"}, "-n/--namespace: the `kubernetes` ServiceCIDR is cluster-wide"},
		{[]string{"replace-default", "--policy", "PreferDualStack"}, "unknown flag: --policy"},
	} {
		client := fakeCluster()
		client.ClearActions()
		out, errOut, code := runWith(t, client, tc.args...)
		if code != 1 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", tc.args, code, out, errOut, tc.want)
		}
		for _, a := range client.Actions() {
			if v := a.GetVerb(); v != "get" && v != "list" {
				t.Errorf("%v made a %s of %s", tc.args, v, a.GetResource().Resource)
			}
		}
	}
}

// TestRenumberJSONKeepsStdoutParseable runs renumber -o json on the fake
// cluster: stdout is the plan alone, the changes go to stderr.
func TestRenumberJSONKeepsStdoutParseable(t *testing.T) {
	client := fakeCluster()
	out, errOut, code := runWith(t, client, "renumber", "--to", target, "-o", "json")
	var pl renumber.Plan
	if err := json.Unmarshal([]byte(out), &pl); err != nil {
		t.Fatalf("renumber -o json (exit %d) printed %q on stdout: %v", code, out, err)
	}
	if !strings.Contains(errOut, "recorded the renumber") {
		t.Errorf("renumber -o json: stderr %q lacks the changes", errOut)
	}
}

// withKubernetesService adds the apiservers' Service at the old range's first address.
func withKubernetesService(t *testing.T, client *fake.Clientset) *fake.Clientset {
	t.Helper()
	k := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default", UID: "k1"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.1", ClusterIPs: []string{"10.96.0.1"},
			Ports: []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP}}},
	}
	if _, err := client.CoreV1().Services("default").Create(context.Background(), k, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return client
}

// TestPlanMovesKubernetes checks the plan lists the kubernetes Service with
// its old and new address and its bridge, the step that moves it, and the
// note that the certificate was not checked (the fake has no connection).
func TestPlanMovesKubernetes(t *testing.T) {
	client := withKubernetesService(t, fakeCluster())
	out, errOut, code := runWith(t, client, "plan", "--to", target, "-o", "json")
	if code != 0 {
		t.Fatalf("plan -o json: exit %d, %s", code, errOut)
	}
	var pl renumber.Plan
	if err := json.Unmarshal([]byte(out), &pl); err != nil {
		t.Fatal(err)
	}
	var k *renumber.PlannedService
	for i := range pl.Services {
		if pl.Services[i].Namespace == "default" && pl.Services[i].Name == "kubernetes" {
			k = &pl.Services[i]
		}
	}
	if k == nil || k.Disposition != renumber.Move || strings.Join(k.OldClusterIPs, ",") != "10.96.0.1" ||
		strings.Join(k.NewClusterIPs, ",") != "10.200.0.1" || k.Bridge != renumber.KubernetesBridgeName {
		t.Errorf("plan lists the kubernetes Service as %+v; want moved from 10.96.0.1 to 10.200.0.1 with bridge %s", k, renumber.KubernetesBridgeName)
	}
	if len(pl.Notes) != 1 || !strings.Contains(pl.Notes[0], "not checked that the apiservers' certificates name 10.200.0.1") {
		t.Errorf("plan notes %q; want the certificate not checked", pl.Notes)
	}
	out, _, code = runWith(t, client, "plan", "--to", target)
	for _, want := range []string{
		"delete it and at once create Service default/kubernetes-renumber-bridge at 10.96.0.1",
		"wait until the apiservers recreate Service default/kubernetes at 10.200.0.1",
		"Notes:\n  - not checked",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("plan: exit %d, %q; want %q", code, out, want)
		}
	}
	if strings.Contains(out, "Left to the operator") && strings.Contains(out, "default/kubernetes (at") {
		t.Errorf("plan leaves the kubernetes Service to the operator: %q", out)
	}

	taken := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: renumber.KubernetesBridgeName, Namespace: "default"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.97.0.5", ClusterIPs: []string{"10.97.0.5"}}}
	if _, err := client.CoreV1().Services("default").Create(context.Background(), taken, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code = runWith(t, client, "plan", "--to", target); code != 1 || !strings.Contains(errOut, "default/kubernetes-renumber-bridge hold the names the renumber needs for bridges") {
		t.Errorf("plan with the bridge's name taken: exit %d, %q", code, errOut)
	}
}

// TestFamilyCommandsTakeNamespace runs dual-stack and single-stack with -n:
// they change the Services of that namespace only.
func TestFamilyCommandsTakeNamespace(t *testing.T) {
	headless := func(ns string) *corev1.Service {
		return &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "hl", Namespace: ns, UID: types.UID(ns)},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: corev1.ClusterIPNone, ClusterIPs: []string{corev1.ClusterIPNone},
				IPFamilyPolicy: ptr.To(corev1.IPFamilyPolicySingleStack), IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}},
		}
	}
	client := fake.NewClientset(
		&networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.96.0.0/16", "fd00:10:96::/108"}}},
		headless("apps"), headless("other"))
	// the registry trims the secondary family of a Service updated to SingleStack
	client.PrependReactor("update", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		s := a.(k8stesting.UpdateAction).GetObject().(*corev1.Service)
		if *s.Spec.IPFamilyPolicy == corev1.IPFamilyPolicySingleStack {
			s.Spec.IPFamilies = s.Spec.IPFamilies[:1]
		}
		return false, nil, nil
	})
	for _, tc := range []struct {
		args     []string
		families int
		want     string
	}{
		{[]string{"dual-stack", "-n", "apps"}, 2, "apps/hl: SingleStack [None] -> PreferDualStack [None]\ndual-stack: 1 Services changed\n"},
		{[]string{"single-stack", "--namespace=apps"}, 1, "apps/hl: PreferDualStack [None] -> SingleStack [None]\nsingle-stack: 1 Services changed\n"},
	} {
		out, errOut, code := runWith(t, client, tc.args...)
		if code != 0 || out != tc.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", tc.args, code, out, errOut, tc.want)
		}
		for ns, want := range map[string]int{"apps": tc.families, "other": 1} {
			s, err := client.CoreV1().Services(ns).Get(t.Context(), "hl", metav1.GetOptions{})
			if err != nil || len(s.Spec.IPFamilies) != want {
				t.Errorf("%v: Service %s/hl has families %v, %v; want %d", tc.args, ns, s.Spec.IPFamilies, err, want)
			}
		}
	}
}
