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
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/pkg/controlplane/apiserverranges"
	"github.com/netfork/netfork/pkg/servicecidr/renumber"
	"github.com/netfork/netfork/test/integration/framework"
)

// identityLease is an apiserver identity Lease renewed at renew, annotated
// with ranges unless ranges is empty (an upstream apiserver, or one not rolled).
func identityLease(name string, renew time.Time, ranges string) *coordinationv1.Lease {
	l := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceSystem,
			Labels: map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver"}},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(name),
			LeaseDurationSeconds: ptr.To[int32](3600),
			RenewTime:            &metav1.MicroTime{Time: renew},
		},
	}
	if ranges != "" {
		l.Annotations = map[string]string{apiserverranges.Annotation: ranges}
	}
	return l
}

// TestRefusals checks that each bad input is refused in one line naming what
// is wrong, by plan and by renumber, with nothing changed.
func TestRefusals(t *testing.T) {
	ctx := context.Background()
	s, f := rolledCluster(ctx, t, fewServices)
	leases := s.Client.CoordinationV1().Leases(metav1.NamespaceSystem)

	// A Lease an upstream apiserver left an hour and a half ago is not live and not asked.
	if _, err := leases.Create(ctx, identityLease("gone-apiserver", time.Now().Add(-90*time.Minute), ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// takeName creates a Service named name in default until undone.
	takeName := func(name string) func(t *testing.T) func() {
		return func(t *testing.T) func() {
			if _, err := s.Client.CoreV1().Services("default").Create(ctx, svc("default", name, nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := s.Client.CoreV1().Services("default").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}

	for _, tc := range []struct {
		name  string
		to    string
		setup func(t *testing.T) (undo func())
		want  string
	}{
		{name: "no target", to: "", want: "--to: required"},
		{name: "one family of two", to: "10.200.0.0/16", want: "give one CIDR for each IP family"},
		{name: "too small", to: "10.200.0.0/30,fd00:10:200::/108", want: "--to 10.200.0.0/30 is too small: 2 usable addresses, 6 needed"},
		{name: "overlaps the old range", to: "10.96.128.0/24,fd00:10:200::/108", want: "overlaps the Service range 10.96.0.0/16"},
		{name: "overlaps a node's podCIDR", to: "10.244.1.0/24,fd00:10:200::/108", want: "node node-1 has podCIDR 10.244.1.0/24"},
		{name: "overlaps kubeadm's podSubnet", to: "10.244.128.0/24,fd00:10:200::/108", want: "overlaps the Pod network 10.244.0.0/16"},
		{name: "holds a node address", to: "172.18.0.0/24,fd00:10:200::/108", want: "holds node node-1's InternalIP 172.18.0.2"},
		{name: "outside what the apiservers serve", to: "10.201.0.0/16,fd00:10:201::/108", want: "is outside what apiserver"},
		{name: "an apiserver not rolled", to: target, want: "apiserver upstream-apiserver (Lease upstream-apiserver) does not say its Service range",
			setup: func(t *testing.T) func() {
				if _, err := leases.Create(ctx, identityLease("upstream-apiserver", time.Now(), ""), metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				return func() {
					if err := leases.Delete(ctx, "upstream-apiserver", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				}
			}},
		{name: "an apiserver rolled elsewhere", to: target, want: "is outside what apiserver other-apiserver serves (10.201.0.0/16,fd00:10:201::/108)",
			setup: func(t *testing.T) func() {
				if _, err := leases.Create(ctx, identityLease("other-apiserver", time.Now(), "10.201.0.0/16,fd00:10:201::/108"), metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				return func() {
					if err := leases.Delete(ctx, "other-apiserver", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				}
			}},
		{name: "a LoadBalancer Service", to: target, want: "type LoadBalancer Services default/lb would lose their load balancers",
			setup: func(t *testing.T) func() {
				lb := svc("default", "lb", func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeLoadBalancer })
				if _, err := s.Client.CoreV1().Services("default").Create(ctx, lb, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				return func() {
					if err := s.Client.CoreV1().Services("default").Delete(ctx, "lb", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				}
			}},
		{name: "a bridge's name taken", to: target, want: "Services default/c1-renumber-bridge hold the names the renumber needs for bridges and holders", setup: takeName("c1-renumber-bridge")},
		{name: "a holder's name taken", to: target, want: "Services default/c1-renumber-holder hold the names the renumber needs for bridges and holders", setup: takeName("c1-renumber-holder")},
		{name: "another renumber in progress", to: "10.200.0.0/17,fd00:10:200::/109", want: "a renumber from " + oldRange + " to " + target + " is in progress (phase Moving)",
			setup: func(t *testing.T) func() {
				r := renumber.New(s.Client, renumber.Options{KubeProxySyncPeriod: shortSync, To: mustRanges(t, target), AfterStep: killAfterFirst()})
				if _, err := r.Renumber(ctx); !errors.Is(err, errKilled) {
					t.Fatalf("starting a renumber: %v", err)
				}
				return func() {
					if _, err := renumber.New(s.Client, renumber.Options{KubeProxySyncPeriod: shortSync}).Rollback(ctx); err != nil {
						t.Fatal(err)
					}
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				defer tc.setup(t)()
			}
			var to renumber.Ranges
			if tc.to != "" {
				to = mustRanges(t, tc.to)
			}
			before := snapshot(ctx, t, s.Client, false)
			r := renumber.New(s.Client, renumber.Options{KubeProxySyncPeriod: shortSync, To: to})
			_, planErr := r.Plan(ctx)
			_, err := r.Renumber(ctx)
			for what, err := range map[string]error{"plan": planErr, "renumber": err} {
				if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s: %v; want one line with %q", what, err, tc.want)
				}
			}
			if d := diffSnapshots(before, snapshot(ctx, t, s.Client, false)); len(d) > 0 {
				t.Errorf("the refused renumber changed %v", d)
			}
		})
	}

	// With the Leases gone the same cluster renumbers, a LoadBalancer Service
	// included on request: the refusals above were the input's.
	lb := svc("default", "lb", func(s *corev1.Service) {
		s.Spec.Type = corev1.ServiceTypeLoadBalancer
		s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		s.Spec.LoadBalancerClass = ptr.To("example.com/lb")
	})
	lb, err := s.Client.CoreV1().Services("default").Create(ctx, lb, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.services["default/lb"] = lb
	// A Service created while the run moves the others, from the old range, moves too, bridged.
	created := false
	hook := func(msg string) error {
		if created || !strings.Contains(msg, "back to type") {
			return nil
		}
		created = true
		late, err := s.Client.CoreV1().Services("default").Create(ctx, svc("default", "late", nil), metav1.CreateOptions{})
		if err == nil {
			f.services["default/late"] = late
		}
		return err
	}
	if _, err := renumber.New(s.Client, renumber.Options{KubeProxySyncPeriod: shortSync, To: mustRanges(t, target), IncludeLoadBalancers: true, AfterStep: hook}).Renumber(ctx); err != nil {
		t.Fatalf("renumber after the refusals: %v", err)
	}
	if bridges := strings.Join(listBridges(ctx, t, s.Client), " "); !strings.Contains(bridges, "default/late-renumber-bridge") {
		t.Errorf("bridges %s; want one for the Service created mid-renumber", bridges)
	}
	live := f.checkKept(ctx, t)
	if got := live["default/late"]; got == nil || !mustRanges(t, target).Contains(netip.MustParseAddr(got.Spec.ClusterIP)) {
		t.Errorf("the Service created mid-renumber: %+v", got)
	}
	if got := live["default/lb"]; got == nil || !mustRanges(t, target).Contains(netip.MustParseAddr(got.Spec.ClusterIP)) || got.Spec.HealthCheckNodePort != lb.Spec.HealthCheckNodePort {
		t.Errorf("the LoadBalancer Service after the renumber: %+v", got)
	}
}

// TestRefuseCertificate checks that a renumber which is to move the kubernetes
// Service is refused, by plan and by renumber, with nothing changed, while the
// apiserver serves the plugin's connection a certificate without the
// Service's address in the target.
func TestRefuseCertificate(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	old := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix))
	newFixture(ctx, t, old.Client, fewServices)
	old.Stop()
	s := startRolled(t, prefix, target) // the certificate names 10.96.0.1, not 10.200.0.1
	markRolled(ctx, t, s.Client, target)

	want := "the apiserver at " + s.Config.Host + " serves a certificate without IP SAN 10.200.0.1, the kubernetes Service's address in the target: add it (kubeadm init phase certs apiserver) before renumbering"
	before := snapshot(ctx, t, s.Client, false)
	r := renumber.New(s.Client, renumber.Options{KubeProxySyncPeriod: shortSync, To: mustRanges(t, target), Config: s.Config})
	_, planErr := r.Plan(ctx)
	_, err := r.Renumber(ctx)
	for what, err := range map[string]error{"plan": planErr, "renumber": err} {
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v; want %q", what, err, want)
		}
	}
	if d := diffSnapshots(before, snapshot(ctx, t, s.Client, false)); len(d) > 0 {
		t.Errorf("the refused renumber changed %v", d)
	}
}
