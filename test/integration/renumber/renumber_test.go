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
	"bytes"
	"context"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/pkg/controlplane/controller/servicebridge"
	"github.com/netfork/netfork/pkg/servicecidr/renumber"
	"github.com/netfork/netfork/test/integration/framework"
)

// TestRenumberMixedServices renumbers Services of every kind on an apiserver
// rolled to the target range and checks each kept everything but its
// ClusterIPs, a bridge holds its old addresses, kubeadm's ConfigMaps name the
// new range and DNS address, the kubernetes Service moved with a bridge that
// has the apiserver's endpoints, and finish waits for old pods.
func TestRenumberMixedServices(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	old := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix))
	f := newFixture(ctx, t, old.Client, mixedServices)
	oldPod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "old", Namespace: appsNS},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: appsNS}}
	if _, err := old.Client.CoreV1().ServiceAccounts(appsNS).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Client.CoreV1().Pods(appsNS).Create(ctx, oldPod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	old.Stop()

	s := startRolled(t, prefix, target, targetSANs...)
	markRolled(ctx, t, s.Client, target)
	f.client = s.Client

	var log bytes.Buffer
	// The times the kubernetes Service was deleted and its bridge created, for the log.
	var deleted, bridged time.Time
	// The times the Services were recorded and the last of them was back, for the log.
	var recorded, moved time.Time
	timeSteps := func(msg string) error {
		switch {
		case strings.HasPrefix(msg, "recorded ") && strings.HasSuffix(msg, " Services"):
			recorded = time.Now()
		case strings.Contains(msg, ": back to type "):
			moved = time.Now()
		case strings.HasPrefix(msg, "Service default/kubernetes deleted"):
			deleted = time.Now()
		case strings.HasPrefix(msg, "Service default/"+renumber.KubernetesBridgeName+": bridge created"):
			bridged = time.Now()
		}
		return nil
	}
	sliceAdded := watchFirstAdded(ctx, t, s.Client, renumber.KubernetesBridgeName)
	r := renumber.New(s.Client, renumber.Options{To: mustRanges(t, target), Log: &log, Config: s.Config, AfterStep: timeSteps})
	before := snapshot(ctx, t, s.Client, false)
	pl, err := r.Plan(ctx)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if d := diffSnapshots(before, snapshot(ctx, t, s.Client, false)); len(d) > 0 {
		t.Fatalf("plan changed the cluster: %v", d)
	}
	moves := 0
	for _, ps := range pl.Services {
		if ps.Disposition == renumber.Move {
			moves++
		}
		if ps.Namespace == "default" && ps.Name == "kubernetes" && (!equalStrings(ps.OldClusterIPs, []string{"10.96.0.1"}) ||
			!equalStrings(ps.NewClusterIPs, []string{"10.200.0.1"}) || ps.Bridge != renumber.KubernetesBridgeName) {
			t.Errorf("plan for the kubernetes Service: %+v; want 10.96.0.1 -> 10.200.0.1 with bridge %s", ps, renumber.KubernetesBridgeName)
		}
	}
	if moves != 17 {
		t.Errorf("plan moves %d Services, want 17 (20 less 3 headless and 1 ExternalName, and the kubernetes Service): %+v", moves, pl.Services)
	}
	if len(pl.Notes) != 1 || !strings.Contains(pl.Notes[0], "serves a certificate with IP SAN 10.200.0.1") {
		t.Errorf("plan notes %q; want the certificate checked", pl.Notes)
	}

	if _, err := r.Renumber(ctx); err != nil {
		t.Fatalf("renumber: %v\n%s", err, log.String())
	}
	t.Logf("%d Services moved in %s, %d windows", moves-1, moved.Sub(recorded).Round(time.Millisecond), strings.Count(log.String(), " primes kube-proxy"))
	if again, err := r.Plan(ctx); err != nil || !strings.HasPrefix(again.Steps[0], "(done) ") || !strings.HasPrefix(again.Steps[len(again.Steps)-2], "(done) ") ||
		strings.HasPrefix(again.Steps[len(again.Steps)-1], "(done) ") {
		t.Errorf("the plan after the renumber: %v; want every step but finish marked done", err)
		if again != nil {
			t.Log(strings.Join(again.Steps, "\n"))
		}
	}
	to := mustRanges(t, target)
	live := f.checkKept(ctx, t)
	for key, got := range live {
		want := f.services[key]
		ips := want.Spec.ClusterIPs
		if len(ips) == 0 || ips[0] == corev1.ClusterIPNone {
			if !equalStrings(got.Spec.ClusterIPs, want.Spec.ClusterIPs) {
				t.Errorf("Service %s without ClusterIPs now has %v", key, got.Spec.ClusterIPs)
			}
			continue
		}
		for i, ip := range got.Spec.ClusterIPs {
			a := netip.MustParseAddr(ip)
			if !to.Contains(a) {
				t.Errorf("Service %s has ClusterIP %s outside %s", key, ip, target)
			}
			if i < len(ips) && hostPart(ips[i]) != hostPart(ip) {
				t.Errorf("Service %s moved %s to %s: host offset not kept", key, ips[i], ip)
			}
			ipa, err := s.Client.NetworkingV1().IPAddresses().Get(ctx, a.String(), metav1.GetOptions{})
			if err != nil || ipa.Spec.ParentRef == nil || ipa.Spec.ParentRef.Name != got.Name || ipa.Spec.ParentRef.Namespace != got.Namespace {
				t.Errorf("IPAddress %s of Service %s: %+v, %v", ip, key, ipa, err)
			}
		}
		if g, w := managers(got), managers(want); g != w {
			t.Errorf("Service %s has field managers %s, want %s as before", key, g, w)

		}
		bridge, err := s.Client.CoreV1().Services(got.Namespace).List(ctx, metav1.ListOptions{LabelSelector: renumber.BridgeLabel + "=" + got.Name})
		if err != nil || len(bridge.Items) != 1 {
			t.Errorf("Service %s: want one bridge, got %v, %v", key, bridge, err)
			continue
		}
		b := bridge.Items[0]
		if !equalStrings(b.Spec.ClusterIPs, ips) || len(b.Spec.Selector) != 0 {
			t.Errorf("bridge %s/%s has ClusterIPs %v and selector %v, want %v and none", b.Namespace, b.Name, b.Spec.ClusterIPs, b.Spec.Selector, ips)
		}
		// The renumber returns once the apiserver adopted the copies it wrote.
		src, err := endpointsIn(ctx, s.Client, got.Namespace, got.Name, "endpointslice-controller.k8s.io")
		if err != nil {
			t.Fatal(err)
		}
		dst, err := endpointsIn(ctx, s.Client, b.Namespace, b.Name, servicebridge.ManagedBy)
		if err != nil {
			t.Fatal(err)
		}
		if len(src) == 0 || !reflect.DeepEqual(src, dst) {
			t.Errorf("bridge %s/%s has EndpointSlices %v, want copies of its Service's %v", b.Namespace, b.Name, dst, src)
		}
		if n := unowned(ctx, t, s.Client, b.Namespace, b.Name); n > 0 {
			t.Errorf("bridge %s/%s has %d EndpointSlices the apiserver did not adopt", b.Namespace, b.Name, n)
		}
		for _, ip := range ips {
			ipa, err := s.Client.NetworkingV1().IPAddresses().Get(ctx, ip, metav1.GetOptions{})
			if err != nil || ipa.Spec.ParentRef == nil || ipa.Spec.ParentRef.Name != b.Name {
				t.Errorf("IPAddress %s of bridge %s/%s: %+v, %v", ip, b.Namespace, b.Name, ipa, err)
			}
		}
	}

	cms := s.Client.CoreV1().ConfigMaps(metav1.NamespaceSystem)
	if chunks, err := cms.List(ctx, metav1.ListOptions{LabelSelector: renumber.ChunkLabel + "=" + renumber.StateName}); err == nil {
		size := 0
		for _, c := range chunks.Items {
			size += len(c.Data["services"])
		}
		t.Logf("the record of %d moved Services takes %d bytes in %d chunks", moves, size, len(chunks.Items))
	}
	kubeadm, err := cms.Get(ctx, "kubeadm-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kubeadm.Data["ClusterConfiguration"], strings.Replace(kubeadmConfig, "serviceSubnet: "+oldRange, "serviceSubnet: "+target, 1); got != want {
		t.Errorf("kubeadm-config ClusterConfiguration:\n%s\nwant\n%s", got, want)
	}
	kubelet, err := cms.Get(ctx, "kubelet-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kubelet.Data["kubelet"], strings.Replace(kubeletConfig, "- 10.96.0.10", "- 10.200.0.10", 1); got != want {
		t.Errorf("kubelet-config kubelet:\n%s\nwant\n%s", got, want)
	}
	sc, err := s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil || sc.DeletionTimestamp == nil {
		t.Errorf("after the cut-over the old ServiceCIDR kubernetes is %+v, %v; want it terminating", sc, err)
	}
	kbridge := checkKubernetesMoved(ctx, t, s.Client, []string{"10.96.0.1"})
	t.Logf("the kubernetes Service deleted to its bridge created (the address without a Service): %s; the bridge created to its first EndpointSlice: %s",
		bridged.Sub(deleted), (<-sliceAdded).Sub(bridged))
	// finish counts the pods started before the kubernetes Service moved: the cut-over is later.
	if st := recordedState(ctx, t, s.Client); st.Kubernetes == nil || st.CutOver == nil || st.CutOver.Before(&kbridge.CreationTimestamp) {
		t.Errorf("record: kubernetes %+v, cut-over %v; want the cut-over at or after the bridge's creation %v", st.Kubernetes, st.CutOver, kbridge.CreationTimestamp)
	}
	if moved, cut := strings.Index(log.String(), renumber.KubernetesBridgeName+": bridge created"), strings.Index(log.String(), "recorded the cut-over"); moved < 0 || cut < moved {
		t.Errorf("the cut-over was recorded (at %d of the log) before the kubernetes Service moved (at %d):\n%s", cut, moved, log.String())
	}

	// Finish refuses while the pod made before the cut-over runs, naming it.
	_, err = r.Finish(ctx)
	if err == nil || !strings.Contains(err.Error(), appsNS+"/old") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("finish with an old pod running: %v; want one line naming %s/old", err, appsNS)
	}
	if err := s.Client.CoreV1().Pods(appsNS).Delete(ctx, "old", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	left, err := r.Finish(ctx)
	if err != nil {
		t.Fatalf("finish: %v", err)
	}
	bridges, err := s.Client.CoreV1().Services("").List(ctx, metav1.ListOptions{LabelSelector: renumber.BridgeLabel})
	if err != nil || len(bridges.Items) != 0 {
		t.Errorf("after finish: bridges %v, %v", bridges, err)
	}
	if strings.Contains(strings.Join(left, "\n"), "default/kubernetes") {
		t.Errorf("finish left %q; the kubernetes Service has moved", left)
	}
	f.checkKept(ctx, t)
	// The apiserver's bridge controller deletes the bridge's slices with it (no garbage collector runs here).
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := endpointsByType(ctx, s.Client, renumber.KubernetesBridgeName, "")
		return err == nil && len(got) == 0, nil
	})
	if err != nil {
		t.Errorf("the kubernetes Service's bridge left EndpointSlices behind: %v", err)
	}

	// What finish left to the apiservers: the old ServiceCIDR, free once the
	// bridges are gone, goes and comes back with the target range; finish, run
	// again, deletes the target ServiceCIDR.
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		sc, err := s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil && sc.DeletionTimestamp == nil && strings.Join(sc.Spec.CIDRs, ",") == target, nil
	})
	if err != nil {
		sc, scerr := s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, "kubernetes", metav1.GetOptions{})
		t.Fatalf("the apiserver did not move ServiceCIDR kubernetes (%v, %v) to %s: %v", sc.Spec.CIDRs, scerr, target, err)
	}
	if left, err = r.Finish(ctx); err != nil {
		t.Fatalf("finish again: %v", err)
	}
	if strings.Contains(strings.Join(left, "\n"), "ServiceCIDR") || strings.Contains(strings.Join(left, "\n"), "default/kubernetes") {
		t.Errorf("finish, run again, left %q", left)
	}
	waitServiceCIDRGone(ctx, t, s.Client, renumber.TargetServiceCIDRName)
	f.checkKept(ctx, t)
	t.Log(log.String())
}

// hostPart is an address's offset in its family's /16 (IPv4) or /108 (IPv6), as text.
func hostPart(ip string) string {
	a := netip.MustParseAddr(ip)
	b := a.As16()
	if a.Is4() {
		return string(b[14:])
	}
	return string([]byte{b[13] & 0x0f, b[14], b[15]})
}

func equalStrings(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

// managers names a Service's field managers and their operations.
func managers(s *corev1.Service) string {
	var out []string
	for _, m := range s.ManagedFields {
		out = append(out, m.Manager+"/"+string(m.Operation)+"/"+m.Subresource)
	}
	return strings.Join(out, ",")
}

// watchFirstAdded sends when the first EndpointSlice of Service name is added.
func watchFirstAdded(ctx context.Context, t *testing.T, client kubernetes.Interface, name string) <-chan time.Time {
	t.Helper()
	w, err := client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).Watch(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	added := make(chan time.Time, 1)
	go func() {
		for ev := range w.ResultChan() {
			if ev.Type == watch.Added {
				added <- time.Now()
				return
			}
		}
	}()
	return added
}
