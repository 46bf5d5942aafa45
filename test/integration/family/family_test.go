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
// Package family tests kubectl-servicecidr's dual-stack, single-stack and
package family

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	repaircontroller "github.com/netfork/netfork/pkg/registry/core/service/ipallocator/controller"
	"github.com/netfork/netfork/pkg/servicecidr/family"
	"github.com/netfork/netfork/pkg/servicecidr/renumber"
	"github.com/netfork/netfork/test/integration/framework"
)

// TestDualStackAndBack rolls an IPv4 apiserver to two ranges and back, and
// runs the plugin's steps around each roll: dual-stack, single-stack,
// replace-default (killed after each of its changes and run again), and the
// refusals on the way.
func TestDualStackAndBack(t *testing.T) {
	ctx := context.Background()
	// The apiserver on one range cannot release the `kubernetes` Service's
	// IPv6 address when it makes it single-stack; its repair loop deletes it
	// after this grace period (60 s), and replace-default waits for that.
	t.Cleanup(repaircontroller.SetOrphanGracePeriodForTest(time.Second))
	prefix := framework.NewEtcdPrefix(t)
	s := start(t, prefix, v4Range, v4Advertised)
	waitFor(ctx, t, "the kubernetes Service at 10.96.0.1", func(ctx context.Context) (bool, error) {
		k, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil && slices.Equal(k.Spec.ClusterIPs, []string{"10.96.0.1"}), nil
	})
	if _, err := s.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: appsNS}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := map[string]*corev1.Service{}
	for _, f := range fixture() {
		created, err := s.Client.CoreV1().Services(f.Namespace).Create(ctx, f, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating Service %s/%s: %v", f.Namespace, f.Name, err)
		}
		before[f.Namespace+"/"+f.Name] = created
	}

	var log bytes.Buffer
	runner := func(client *framework.APIServer) *family.Runner {
		log.Reset()
		return family.New(client.Client, family.Options{Log: &log, Timeout: time.Minute})
	}
	_, err := runner(s).DualStack(ctx)
	if want := "ServiceCIDR kubernetes has one CIDR (10.96.0.0/16): roll every apiserver to two ranges first"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("dual-stack on one range: %v; want %q", err, want)
	}

	// Roll the apiserver to two ranges: it adds the second CIDR to the
	// `kubernetes` ServiceCIDR and makes the `kubernetes` Service dual-stack.
	s.Stop()
	s = start(t, prefix, v4Range+","+v6Range, v4Advertised+","+v6Advertised)
	waitFor(ctx, t, "ServiceCIDR kubernetes with both CIDRs", func(ctx context.Context) (bool, error) {
		sc, err := s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, renumber.DefaultServiceCIDRName, metav1.GetOptions{})
		return err == nil && slices.Equal(sc.Spec.CIDRs, []string{v4Range, v6Range}), nil
	})
	waitFor(ctx, t, "the kubernetes Service dual-stack with an IPv6 EndpointSlice", func(ctx context.Context) (bool, error) {
		k, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		if err != nil || !slices.Equal(k.Spec.ClusterIPs, []string{"10.96.0.1", "fd00:10:96::1"}) {
			return false, nil
		}
		eps, err := kubernetesSlices(ctx, s.Client)
		return err == nil && strings.Join(eps[discoveryv1.AddressTypeIPv6], ",") == v6Advertised, nil
	})

	changes, err := runner(s).DualStack(ctx)
	if err != nil || len(changes) != len(converted) {
		t.Fatalf("dual-stack: %d changes, %v; want %d\n%s", len(changes), err, len(converted), log.String())
	}
	for _, key := range converted {
		b, a := before[key], getService(ctx, t, s.Client, key)
		if a.UID != b.UID || a.Spec.ClusterIPs[0] != b.Spec.ClusterIPs[0] || len(a.Spec.IPFamilies) != 2 {
			t.Errorf("Service %s after dual-stack: UID %s, %+v; want UID %s, primary %s and two families", key, a.UID, a.Spec, b.UID, b.Spec.ClusterIPs[0])
		}
		if b.Spec.ClusterIP == corev1.ClusterIPNone {
			continue
		}
		if len(a.Spec.ClusterIPs) != 2 || !isIPv6(a.Spec.ClusterIPs[1]) {
			t.Errorf("Service %s after dual-stack has ClusterIPs %v; want an IPv6 one second", key, a.Spec.ClusterIPs)
			continue
		}
		if ok, err := ipAddressOf(ctx, s.Client, a.Spec.ClusterIPs[1], key); !ok {
			t.Errorf("Service %s: no IPAddress %s of it: %v", key, a.Spec.ClusterIPs[1], err)
		}
	}
	if ext := getService(ctx, t, s.Client, "default/ext"); ext.ResourceVersion != before["default/ext"].ResourceVersion {
		t.Errorf("dual-stack changed the ExternalName Service: %+v", ext.Spec)
	}
	if changes, err := runner(s).DualStack(ctx); err != nil || len(changes) != 0 || !strings.Contains(log.String(), "nothing to change") {
		t.Fatalf("dual-stack again: %d changes, %v, %q; want nothing changed", len(changes), err, log.String())
	}

	// replace-default is refused while the apiserver's own IPv6 address is in use
	err = runner(s).ReplaceDefault(ctx)
	if want := "fd00:10:96::1 (Service default/kubernetes)"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "roll the apiservers to one range first") {
		t.Fatalf("replace-default while dual-stack: %v; want a refusal naming %s", err, want)
	}
	if _, err := s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, family.HoldName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the refused replace-default made ServiceCIDR %s: %v", family.HoldName, err)
	}

	dual := map[string]*corev1.Service{}
	for _, key := range converted {
		dual[key] = getService(ctx, t, s.Client, key)
	}
	changes, err = runner(s).SingleStack(ctx)
	if err != nil || len(changes) != len(converted) {
		t.Fatalf("single-stack: %d changes, %v; want %d\n%s", len(changes), err, len(converted), log.String())
	}
	for _, key := range converted {
		d, a := dual[key], getService(ctx, t, s.Client, key)
		if a.UID != d.UID || !slices.Equal(a.Spec.ClusterIPs, d.Spec.ClusterIPs[:1]) || !slices.Equal(a.Spec.IPFamilies, []corev1.IPFamily{corev1.IPv4Protocol}) ||
			*a.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
			t.Errorf("Service %s after single-stack: %+v; want SingleStack at %s", key, a.Spec, d.Spec.ClusterIPs[0])
		}
		if len(d.Spec.ClusterIPs) == 2 {
			waitFor(ctx, t, "the IPAddress "+d.Spec.ClusterIPs[1]+" released", func(ctx context.Context) (bool, error) {
				_, err := s.Client.NetworkingV1().IPAddresses().Get(ctx, d.Spec.ClusterIPs[1], metav1.GetOptions{})
				return apierrors.IsNotFound(err), nil
			})
		}
	}

	// Roll the apiserver back to one range: it makes the `kubernetes` Service
	// single-stack, releases its IPv6 address and drops its IPv6 EndpointSlice.
	s.Stop()
	s = start(t, prefix, v4Range, v4Advertised)
	waitFor(ctx, t, "the kubernetes Service single-stack without an IPv6 EndpointSlice (kubernetes/kubernetes#101070)", func(ctx context.Context) (bool, error) {
		k, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		if err != nil || !slices.Equal(k.Spec.ClusterIPs, []string{"10.96.0.1"}) {
			return false, nil
		}
		eps, err := kubernetesSlices(ctx, s.Client)
		return err == nil && len(eps[discoveryv1.AddressTypeIPv6]) == 0 && strings.Join(eps[discoveryv1.AddressTypeIPv4], ",") == v4Advertised, nil
	})
	// replace-default, stopped after each of its changes as a kill would and
	// run again, continues from where it stopped until it completes.
	errKilled := errors.New("killed by the test")
	killed := 0
	for {
		log.Reset()
		kill := family.Options{Log: &log, Timeout: time.Minute, AfterStep: func(string) error { return errKilled }}
		err := family.New(s.Client, kill).ReplaceDefault(ctx)
		if err == nil {
			break
		}
		if !errors.Is(err, errKilled) {
			t.Fatalf("replace-default after %d kills: %v\n%s", killed, err, log.String())
		}
		if killed++; killed > 5 {
			t.Fatalf("replace-default did not complete after %d kills", killed)
		}
	}
	if killed != 3 {
		t.Errorf("replace-default completed after %d kills; want 3: it makes three changes (the hold, the delete of kubernetes, the hold's delete), each stopped once", killed)
	}
	sc, err := s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, renumber.DefaultServiceCIDRName, metav1.GetOptions{})
	if err != nil || !slices.Equal(sc.Spec.CIDRs, []string{v4Range}) || sc.DeletionTimestamp != nil {
		t.Fatalf("ServiceCIDR kubernetes after replace-default: %+v, %v; want %s", sc, err, v4Range)
	}
	if _, err := s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, family.HoldName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("ServiceCIDR %s after replace-default: %v; want it gone", family.HoldName, err)
	}
	checkAddresses(ctx, t, s.Client)
	if err := runner(s).ReplaceDefault(ctx); err != nil || !strings.Contains(log.String(), "nothing to replace") {
		t.Errorf("replace-default again: %v, %q; want nothing to replace", err, log.String())
	}
}
