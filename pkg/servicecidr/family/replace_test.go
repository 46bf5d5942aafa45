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
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

func ipAddress(ip, namespace, name string) *networkingv1.IPAddress {
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: ip},
		Spec:       networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: namespace, Name: name}},
	}
}

func hold(cidrs ...string) *networkingv1.ServiceCIDR {
	h := readyCIDR(HoldName, "hold-uid", cidrs...)
	h.Labels = map[string]string{ManagedByLabel: renumber.FieldManager}
	return h
}

func terminating(sc *networkingv1.ServiceCIDR) *networkingv1.ServiceCIDR {
	sc.DeletionTimestamp = ptr.To(metav1.Now())
	sc.Finalizers = []string{"networking.k8s.io/service-cidr-finalizer"}
	return sc
}

// v4Addresses are the IPv4 addresses in use once every Service is single-stack.
func v4Addresses() []runtime.Object {
	return []runtime.Object{ipAddress("10.96.0.1", "default", "kubernetes"), ipAddress("10.96.0.5", "default", "web")}
}

// rolledBack is a cluster whose apiservers serve one range again, with objects.
func rolledBack(t *testing.T, objects ...runtime.Object) *fakeCluster {
	t.Helper()
	return newFakeCluster(t, []string{v4Range}, append(v4Addresses(), objects...)...)
}

// checkReplaced fails unless `kubernetes` has the one CIDR, is not the
// fixture's dual-stack one, and the hold is gone.
func checkReplaced(t *testing.T, f *fakeCluster) {
	t.Helper()
	f.stopped = true
	def, err := f.NetworkingV1().ServiceCIDRs().Get(t.Context(), renumber.DefaultServiceCIDRName, metav1.GetOptions{})
	if err != nil || !slices.Equal(def.Spec.CIDRs, []string{v4Range}) || def.DeletionTimestamp != nil || def.UID == dualDefault().UID {
		t.Errorf("ServiceCIDR kubernetes after replace-default: %+v, %v; want a new one with %s", def, err, v4Range)
	}
	if _, err := f.NetworkingV1().ServiceCIDRs().Get(t.Context(), HoldName, metav1.GetOptions{}); err == nil {
		t.Errorf("ServiceCIDR %s is still there", HoldName)
	}
	f.stopped = false
}

func TestReplaceDefault(t *testing.T) {
	f := rolledBack(t, dualDefault())
	if err := f.runner(Options{}).ReplaceDefault(t.Context()); err != nil {
		t.Fatal(err)
	}
	checkReplaced(t, f)
	want := []string{"create servicecidrs " + HoldName, "delete servicecidrs kubernetes", "delete servicecidrs " + HoldName}
	if w := f.writes(); !slices.Equal(w, want) {
		t.Errorf("writes %v; want %v", w, want)
	}
	if !strings.HasSuffix(f.log.String(), "replace-default: ServiceCIDR kubernetes has one CIDR (10.96.0.0/16)\n") {
		t.Errorf("output %q", f.log.String())
	}
	f.ClearActions()
	f.log.Reset()
	if err := f.runner(Options{}).ReplaceDefault(t.Context()); err != nil || len(f.writes()) != 0 || !strings.Contains(f.log.String(), "nothing to replace") {
		t.Errorf("second run: %v, writes %v, output %q; want nothing to replace", err, f.writes(), f.log.String())
	}
}

// TestReplaceDefaultResumes kills a run after each change it makes and
// checks that a second run ends the replacement without repeating it.
func TestReplaceDefaultResumes(t *testing.T) {
	errKilled := errors.New("killed")
	for kill := 1; kill <= 3; kill++ {
		t.Run(fmt.Sprintf("killed after change %d", kill), func(t *testing.T) {
			f := rolledBack(t, dualDefault())
			n := 0
			err := f.runner(Options{AfterStep: func(string) error {
				if n++; n == kill {
					return errKilled
				}
				return nil
			}}).ReplaceDefault(t.Context())
			if !errors.Is(err, errKilled) {
				t.Fatalf("first run: %v; want it killed", err)
			}
			done := f.writes()
			f.ClearActions()
			if err := f.runner(Options{}).ReplaceDefault(t.Context()); err != nil {
				t.Fatalf("second run: %v", err)
			}
			checkReplaced(t, f)
			if again := f.writes(); slices.ContainsFunc(again, func(w string) bool { return slices.Contains(done, w) }) {
				t.Errorf("second run wrote %v, repeating some of %v", again, done)
			}
		})
	}
}

// TestReplaceDefaultFromEachState starts from each state a killed run or
// the apiservers may leave, and checks the writes that end it.
func TestReplaceDefaultFromEachState(t *testing.T) {
	deleteHold := "delete servicecidrs " + HoldName
	for _, tc := range []struct {
		name    string
		objects []runtime.Object
		writes  []string
	}{
		{"hold made", []runtime.Object{dualDefault(), hold(v4Range)}, []string{"delete servicecidrs kubernetes", deleteHold}},
		{"kubernetes being deleted", []runtime.Object{terminating(dualDefault()), hold(v4Range)}, []string{deleteHold}},
		{"kubernetes being deleted, no hold", []runtime.Object{terminating(dualDefault())}, []string{"create servicecidrs " + HoldName, deleteHold}},
		{"kubernetes gone", []runtime.Object{hold(v4Range)}, []string{deleteHold}},
		{"kubernetes back", []runtime.Object{readyCIDR("kubernetes", "new-uid", v4Range), hold(v4Range)}, []string{deleteHold}},
		{"hold being deleted", []runtime.Object{readyCIDR("kubernetes", "new-uid", v4Range), terminating(hold(v4Range))}, nil},
		{"hold being deleted, kubernetes dual", []runtime.Object{dualDefault(), terminating(hold(v4Range))},
			[]string{"create servicecidrs " + HoldName, "delete servicecidrs kubernetes", deleteHold}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := rolledBack(t, tc.objects...)
			if err := f.runner(Options{}).ReplaceDefault(t.Context()); err != nil {
				t.Fatal(err)
			}
			checkReplaced(t, f)
			if w := f.writes(); !slices.Equal(w, tc.writes) {
				t.Errorf("writes %v; want %v", w, tc.writes)
			}
		})
	}
}

func TestReplaceDefaultRefusals(t *testing.T) {
	kubernetes := []runtime.Object{dualDefault(), ipAddress("fd00:10:96::1", "default", "kubernetes"), svc("default", "kubernetes", at("10.96.0.1", "fd00:10:96::1"))}
	seven := kubernetes
	for i := 2; i <= 7; i++ {
		v6 := fmt.Sprintf("fd00:10:96::%d", i)
		seven = append(seven, ipAddress(v6, "apps", fmt.Sprintf("s%d", i)), svc("apps", fmt.Sprintf("s%d", i), at(fmt.Sprintf("10.96.0.%d", i+10), v6)))
	}
	for _, tc := range []struct {
		name    string
		objects []runtime.Object
		want    []string
	}{
		{"secondary in use", kubernetes,
			[]string{"ServiceCIDR kubernetes cannot shrink while 1 addresses of its secondary CIDR fd00:10:96::/108 are in use: fd00:10:96::1 (Service default/kubernetes)", "roll the apiservers to one range first"}},
		{"many in use", seven, []string{"7 addresses", "fd00:10:96::5 (Service apps/s5) and 2 more"}},
		{"hold not ours", []runtime.Object{dualDefault(), readyCIDR(HoldName, "x", v4Range)}, []string{"ServiceCIDR servicecidr-hold exists without label app.kubernetes.io/managed-by=kubectl-servicecidr"}},
		{"hold elsewhere", []runtime.Object{dualDefault(), hold("10.97.0.0/16")}, []string{"ServiceCIDR servicecidr-hold holds 10.97.0.0/16, not the primary CIDR 10.96.0.0/16"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := rolledBack(t, tc.objects...)
			err := f.runner(Options{}).ReplaceDefault(t.Context())
			if err == nil || strings.Contains(err.Error(), "\n") {
				t.Fatalf("ReplaceDefault: %v; want a one-line refusal", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if w := f.writes(); len(w) != 0 {
				t.Errorf("refused, but wrote %v", w)
			}
		})
	}
}

func TestReplaceDefaultComesBackDual(t *testing.T) {
	// one apiserver still serves two ranges
	f := newFakeCluster(t, []string{v4Range, v6Range}, append(v4Addresses(), dualDefault())...)
	err := f.runner(Options{}).ReplaceDefault(t.Context())
	want := "ServiceCIDR kubernetes came back with 10.96.0.0/16,fd00:10:96::/108: the apiservers still serve two ranges; roll every apiserver to --service-cluster-ip-range=10.96.0.0/16"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("ReplaceDefault: %v; want %q", err, want)
	}
	f.stopped = true
	if _, err := f.NetworkingV1().ServiceCIDRs().Get(t.Context(), HoldName, metav1.GetOptions{}); err != nil {
		t.Errorf("the hold is gone after the failure: %v", err)
	}
	f.stopped = false
	f.ranges = []string{v4Range}
	if err := f.runner(Options{}).ReplaceDefault(t.Context()); err != nil {
		t.Fatalf("after the roll: %v", err)
	}
	checkReplaced(t, f)
}

func TestReplaceDefaultDryRun(t *testing.T) {
	for _, dry := range []DryRun{DryRunClient, DryRunServer} {
		f := rolledBack(t, dualDefault())
		if err := f.runner(Options{DryRun: dry}).ReplaceDefault(t.Context()); err != nil {
			t.Fatal(err)
		}
		if w := f.writes(); len(w) != 0 {
			t.Errorf("dry run %s wrote %v", dry, w)
		}
		for _, want := range []string{"1. create ServiceCIDR servicecidr-hold with 10.96.0.0/16", "2. delete ServiceCIDR kubernetes", "4. delete ServiceCIDR servicecidr-hold"} {
			if !strings.Contains(f.log.String(), want) {
				t.Errorf("dry run %s printed %q; want %q", dry, f.log.String(), want)
			}
		}
	}
}

func TestReplaceDefaultTimeout(t *testing.T) {
	f := rolledBack(t, terminating(dualDefault()), hold(v4Range))
	f.stopped = true // the deletion controller never releases it
	err := f.runner(Options{Timeout: 1}).ReplaceDefault(t.Context())
	want := "still waiting for ServiceCIDR kubernetes to be released by the ServiceCIDR deletion controller and recreated"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("ReplaceDefault: %v; want %q", err, want)
	}
}

// TestReplaceDefaultWaitsForRepair starts with the IPv6 IPAddress an
// apiserver on one range leaves when it makes the `kubernetes` Service
// single-stack: replace-default waits until the repair loop deletes it.
func TestReplaceDefaultWaitsForRepair(t *testing.T) {
	leaked := []runtime.Object{dualDefault(), ipAddress("fd00:10:96::1", "default", "kubernetes"), svc("default", "kubernetes", at("10.96.0.1"))}
	t.Run("deleted", func(t *testing.T) {
		f := rolledBack(t, leaked...)
		lists := 0
		f.PrependReactor("list", "ipaddresses", func(k8stesting.Action) (bool, runtime.Object, error) {
			if lists++; lists == 3 { // the repair loop's grace period is over
				return false, nil, f.Tracker().Delete(networkingv1.SchemeGroupVersion.WithResource("ipaddresses"), "", "fd00:10:96::1")
			}
			return false, nil, nil
		})
		if err := f.runner(Options{}).ReplaceDefault(t.Context()); err != nil {
			t.Fatal(err)
		}
		checkReplaced(t, f)
		if want := "waiting for the apiservers' IPAddress repair loop to delete fd00:10:96::1, which no Service holds\n"; !strings.HasPrefix(f.log.String(), want) {
			t.Errorf("output %q; want it to start with %q", f.log.String(), want)
		}
	})
	t.Run("never", func(t *testing.T) {
		f := rolledBack(t, leaked...)
		err := f.runner(Options{Timeout: time.Millisecond}).ReplaceDefault(t.Context())
		want := "still waiting for the apiservers' IPAddress repair loop to delete fd00:10:96::1, which no Service holds"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("ReplaceDefault: %v; want %q", err, want)
		}
		if w := f.writes(); len(w) != 0 {
			t.Errorf("refused, but wrote %v", w)
		}
	})
}
