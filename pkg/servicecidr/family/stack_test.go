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
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

// dualDefault is the `kubernetes` ServiceCIDR once the apiservers serve two ranges.
func dualDefault() *networkingv1.ServiceCIDR {
	return readyCIDR(renumber.DefaultServiceCIDRName, "default-uid", v4Range, v6Range)
}

func dualCluster(t *testing.T, extra ...runtime.Object) *fakeCluster {
	t.Helper()
	return newFakeCluster(t, []string{v4Range, v6Range}, append(append(mixed(), dualDefault()), extra...)...)
}

// changed is the namespace/name of every Service whose IP families differ between before and after.
func changed(before, after map[string]*corev1.Service) []string {
	var out []string
	for k, b := range before {
		a := after[k]
		if !slices.Equal(a.Spec.IPFamilies, b.Spec.IPFamilies) || !slices.Equal(a.Spec.ClusterIPs, b.Spec.ClusterIPs) ||
			ptr.Deref(a.Spec.IPFamilyPolicy, "") != ptr.Deref(b.Spec.IPFamilyPolicy, "") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func TestDualStackSelection(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want []string
	}{
		{"cluster-wide", Options{}, toConvert},
		{"namespace", Options{Namespace: "apps"}, []string{"apps/a1"}},
		{"selector", Options{Selector: "app in (web,hl)"}, []string{"default/hl", "default/web"}},
		{"selector and namespace", Options{Namespace: "apps", Selector: "app=web"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := dualCluster(t)
			before := f.services(t)
			got, err := f.runner(tc.opts).DualStack(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			after := f.services(t)
			if c := changed(before, after); !slices.Equal(c, tc.want) {
				t.Errorf("changed %v; want %v", c, tc.want)
			}
			if len(got) != len(tc.want) {
				t.Errorf("returned %d changes; want %d", len(got), len(tc.want))
			}
			for _, k := range tc.want {
				b, a := before[k], after[k]
				if a.UID != b.UID || a.Spec.ClusterIPs[0] != b.Spec.ClusterIPs[0] || *a.Spec.IPFamilyPolicy != corev1.IPFamilyPolicyPreferDualStack ||
					!slices.Equal(a.Spec.IPFamilies, []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}) {
					t.Errorf("Service %s became %+v; want PreferDualStack IPv4,IPv6 with its UID and primary ClusterIP", k, a.Spec)
				}
				line := k + ": " + string(*b.Spec.IPFamilyPolicy) + " [" + b.Spec.ClusterIPs[0] + "] -> PreferDualStack [" + strings.Join(a.Spec.ClusterIPs, " ") + "]\n"
				if !strings.Contains(f.log.String(), line) {
					t.Errorf("output %q lacks %q", f.log.String(), line)
				}
			}
		})
	}
}

func TestDualStackPolicyAndHeadless(t *testing.T) {
	f := dualCluster(t)
	if _, err := f.runner(Options{Policy: corev1.IPFamilyPolicyRequireDualStack}).DualStack(t.Context()); err != nil {
		t.Fatal(err)
	}
	s := f.services(t)
	if p := *s["default/web"].Spec.IPFamilyPolicy; p != corev1.IPFamilyPolicyRequireDualStack {
		t.Errorf("default/web policy %s; want RequireDualStack", p)
	}
	if ips := s["default/web"].Spec.ClusterIPs; len(ips) != 2 || ips[1] != "fd00:10:96::5" {
		t.Errorf("default/web ClusterIPs %v; want 10.96.0.5 and an IPv6 one", ips)
	}
	if hl := s["default/hl"].Spec; !slices.Equal(hl.ClusterIPs, []string{corev1.ClusterIPNone}) || len(hl.IPFamilies) != 2 {
		t.Errorf("headless default/hl %+v; want two families and no ClusterIP", hl)
	}
}

func TestDualStackIdempotent(t *testing.T) {
	f := dualCluster(t)
	if _, err := f.runner(Options{}).DualStack(t.Context()); err != nil {
		t.Fatal(err)
	}
	f.ClearActions()
	f.log.Reset()
	got, err := f.runner(Options{}).DualStack(t.Context())
	if err != nil || len(got) != 0 || len(f.writes()) != 0 {
		t.Fatalf("second run: %d changes, writes %v, %v; want none", len(got), f.writes(), err)
	}
	if !strings.Contains(f.log.String(), "dual-stack: nothing to change") {
		t.Errorf("second run said %q; want that nothing changed", f.log.String())
	}
}

func TestDualStackRefusals(t *testing.T) {
	single := readyCIDR(renumber.DefaultServiceCIDRName, "default-uid", v4Range)
	deleting := dualDefault()
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	record := func(phase renumber.Phase) *corev1.ConfigMap {
		return &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: renumber.StateNamespace, Name: renumber.StateName},
			Data:       map[string]string{"state": `{"from":["10.96.0.0/16"],"to":["10.200.0.0/16"],"phase":"` + string(phase) + `"}`},
		}
	}
	for _, tc := range []struct {
		name    string
		objects []runtime.Object
		want    string
	}{
		{"one CIDR", []runtime.Object{single}, "ServiceCIDR kubernetes has one CIDR (10.96.0.0/16): roll every apiserver to two ranges first"},
		{"no default", nil, "ServiceCIDR kubernetes not found"},
		{"default being deleted", []runtime.Object{deleting}, "ServiceCIDR kubernetes is being deleted: run replace-default to its end first"},
		{"renumber in progress", []runtime.Object{dualDefault(), record(renumber.PhaseMoving)}, "a renumber 10.96.0.0/16 -> 10.200.0.0/16 is in progress (phase Moving"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeCluster(t, []string{v4Range, v6Range}, append(mixed(), tc.objects...)...)
			f.stopped = true
			_, err := f.runner(Options{}).DualStack(t.Context())
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("DualStack: %v; want one line with %q", err, tc.want)
			}
			if w := f.writes(); len(w) != 0 {
				t.Errorf("refused, but wrote %v", w)
			}
		})
	}
	t.Run("finished renumber", func(t *testing.T) {
		f := newFakeCluster(t, []string{v4Range, v6Range}, append(mixed(), dualDefault(), record(renumber.PhaseFinished))...)
		if _, err := f.runner(Options{}).DualStack(t.Context()); err != nil {
			t.Fatalf("DualStack after a finished renumber: %v", err)
		}
	})
}

func TestDualStackDryRun(t *testing.T) {
	for _, dry := range []DryRun{DryRunClient, DryRunServer} {
		t.Run(string(dry), func(t *testing.T) {
			f := dualCluster(t)
			before := f.services(t)
			got, err := f.runner(Options{DryRun: dry}).DualStack(t.Context())
			if err != nil || len(got) != len(toConvert) {
				t.Fatalf("dry run: %d changes, %v; want %d", len(got), err, len(toConvert))
			}
			if c := changed(before, f.services(t)); len(c) != 0 {
				t.Errorf("dry run %s changed %v", dry, c)
			}
			for _, a := range f.Actions() {
				if u, ok := a.(k8stesting.UpdateActionImpl); ok && (dry == DryRunClient || !slices.Equal(u.UpdateOptions.DryRun, []string{metav1.DryRunAll})) {
					t.Errorf("dry run %s sent update %s with dryRun %v", dry, objectName(u.GetObject()), u.UpdateOptions.DryRun)
				}
			}
			want := map[DryRun]string{DryRunClient: "default/web: SingleStack [10.96.0.5] -> PreferDualStack [10.96.0.5 +IPv6] (dry run)",
				DryRunServer: "default/web: SingleStack [10.96.0.5] -> PreferDualStack [10.96.0.5 fd00:10:96::5] (server dry run)"}[dry]
			if !strings.Contains(f.log.String(), want) || !strings.Contains(f.log.String(), "5 Services would change") {
				t.Errorf("dry run %s printed %q; want %q and the count", dry, f.log.String(), want)
			}
		})
	}
}

func TestDualStackChecksResult(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer answer
		want   string
	}{
		{"refused", refuseFamily, "not configured on this cluster"},
		{"one family back", oneFamily, "came back PreferDualStack with families [IPv4] and ClusterIPs [10.96.2.1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// the ServiceCIDR has two CIDRs, but the apiserver that answers serves one range
			f := newFakeCluster(t, []string{v4Range}, append(mixed(), dualDefault())...)
			f.answer = tc.answer
			_, err := f.runner(Options{}).DualStack(t.Context())
			if err == nil || strings.Contains(err.Error(), "\n") {
				t.Fatalf("DualStack against a one-range apiserver: %v; want a one-line error", err)
			}
			for _, want := range append([]string{tc.want, "roll every apiserver to two ranges, then run dual-stack again"}, toConvert...) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}

func TestDualStackRetriesConflict(t *testing.T) {
	f := dualCluster(t)
	f.conflicts = 2
	if _, err := f.runner(Options{Selector: "app=web"}).DualStack(t.Context()); err != nil {
		t.Fatalf("DualStack after two conflicts: %v", err)
	}
	web := f.services(t)["default/web"]
	if len(web.Spec.ClusterIPs) != 2 || web.Annotations["other"] != "writer" {
		t.Errorf("default/web %+v %v; want dual-stack with the other writer's annotation kept", web.Spec, web.Annotations)
	}
}

func TestSingleStack(t *testing.T) {
	f := dualCluster(t)
	if _, err := f.runner(Options{}).DualStack(t.Context()); err != nil {
		t.Fatal(err)
	}
	ds := svc("default", "born-dual", at("10.96.3.3", "fd00:10:96::3:3"))
	if _, err := f.CoreV1().Services("default").Create(t.Context(), ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := f.services(t)
	f.log.Reset()
	got, err := f.runner(Options{}).SingleStack(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	after := f.services(t)
	want := append([]string{"default/born-dual"}, toConvert...)
	slices.Sort(want)
	if c := changed(before, after); !slices.Equal(c, want) || len(got) != len(want) {
		t.Errorf("changed %v (returned %d); want %v", c, len(got), want)
	}
	for _, k := range want {
		b, a := before[k], after[k]
		if a.UID != b.UID || !slices.Equal(a.Spec.ClusterIPs, b.Spec.ClusterIPs[:1]) || !slices.Equal(a.Spec.IPFamilies, b.Spec.IPFamilies[:1]) ||
			*a.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
			t.Errorf("Service %s became %+v; want SingleStack at its primary ClusterIP", k, a.Spec)
		}
	}
	if !strings.Contains(f.log.String(), "default/born-dual: PreferDualStack [10.96.3.3 fd00:10:96::3:3] -> SingleStack [10.96.3.3]\n") ||
		!strings.Contains(f.log.String(), "single-stack: 6 Services changed") {
		t.Errorf("output %q", f.log.String())
	}
	if bridge := after["default/web-renumber-bridge"]; len(bridge.Spec.IPFamilies) != 1 {
		t.Errorf("the bridge changed: %+v", bridge.Spec)
	}
	f.ClearActions()
	if got, err := f.runner(Options{}).SingleStack(t.Context()); err != nil || len(got) != 0 || len(f.writes()) != 0 {
		t.Errorf("second run: %d changes, writes %v, %v; want none", len(got), f.writes(), err)
	}
}

func TestSingleStackChecksResult(t *testing.T) {
	f := dualCluster(t, svc("default", "born-dual", at("10.96.3.3", "fd00:10:96::3:3")))
	f.PrependReactor("update", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, a.(k8stesting.UpdateAction).GetObject(), nil // an apiserver that trims nothing
	})
	_, err := f.runner(Options{}).SingleStack(t.Context())
	if err == nil || !strings.Contains(err.Error(), "the Services default/born-dual were not converted") || !strings.Contains(err.Error(), "kept the secondary family") {
		t.Fatalf("SingleStack answered with two families: %v; want it named", err)
	}
}
