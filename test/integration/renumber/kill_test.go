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
	"errors"
	"fmt"
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

	"github.com/netfork/netfork/pkg/controlplane/controller/servicebridge"
	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

var errKilled = errors.New("killed by the test")

// killAfterFirst is a hook that stops a run after its first change, as a kill would.
func killAfterFirst() func(string) error {
	return func(string) error { return errKilled }
}

// runKilled runs run with a fresh Runner, killed after its first change,
// until it completes, and checks after every kill that every Service is there.
func runKilled(ctx context.Context, t *testing.T, f *fixture, opts renumber.Options, run func(*renumber.Runner) error) int {
	t.Helper()
	for runs := 1; ; runs++ {
		var log bytes.Buffer
		o := opts
		o.Log, o.AfterStep = &log, killAfterFirst()
		if runs%2 == 0 {
			o.To = nil // even runs continue from the record alone
		}
		err := run(renumber.New(f.client, o))
		if err == nil {
			return runs
		}
		if !errors.Is(err, errKilled) {
			t.Fatalf("run %d: %v\n%s", runs, err, log.String())
		}
		f.checkPresent(ctx, t)
		if runs > 100 {
			t.Fatalf("no end after %d runs", runs)
		}
	}
}

// checkPresent fails unless every fixture Service exists with its UID.
func (f *fixture) checkPresent(ctx context.Context, t *testing.T) {
	t.Helper()
	for key, want := range f.services {
		got, err := f.client.CoreV1().Services(want.Namespace).Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil || got.UID != want.UID {
			t.Fatalf("Service %s after a kill: %v (UID %v, want %v)", key, err, got.UID, want.UID)
		}
	}
}

// TestRenumberKilledAtEveryStep kills the renumber after each of its changes
// and runs it again each time, until it completes with every Service moved.
func TestRenumberKilledAtEveryStep(t *testing.T) {
	ctx := context.Background()
	s, f := rolledCluster(ctx, t, fewServices)
	calls := 0
	runs := runKilled(ctx, t, f, renumber.Options{KubeProxySyncPeriod: shortSync, To: mustRanges(t, target)}, func(r *renumber.Runner) error {
		// A Service created mid-renumber, while the old range still allocates, moves too.
		if calls++; calls == 8 {
			late, err := s.Client.CoreV1().Services("default").Create(ctx, svc("default", "late", nil), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !mustRanges(t, oldRange).Contains(netip.MustParseAddr(late.Spec.ClusterIP)) {
				t.Fatalf("Service late got %s, outside the old range", late.Spec.ClusterIP)
			}
			f.services["default/late"] = late
		}
		// A Service edited after it was recorded, before it moved, keeps the edit.
		if calls == 4 {
			dns, err := s.Client.CoreV1().Services("kube-system").Get(ctx, "kube-dns", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			dns.Spec.Ports = append(dns.Spec.Ports, corev1.ServicePort{Name: "metrics", Port: 9153, Protocol: corev1.ProtocolTCP})
			if dns, err = s.Client.CoreV1().Services("kube-system").Update(ctx, dns, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			f.services["kube-system/kube-dns"] = dns
		}
		_, err := r.Renumber(ctx)
		return err
	})
	if runs < 15 {
		t.Errorf("the renumber completed in %d runs; each kills it after one change, so a run did several", runs)
	}
	live := f.checkKept(ctx, t)
	to := mustRanges(t, target)
	for key, svc := range live {
		for _, ip := range svc.Spec.ClusterIPs {
			if ip != corev1.ClusterIPNone && !to.Contains(netip.MustParseAddr(ip)) {
				t.Errorf("Service %s still at %s", key, ip)
			}
		}
	}
	checkPhase(ctx, t, s.Client, renumber.PhaseRenumbered)
	checkKubernetesMoved(ctx, t, s.Client, []string{"10.96.0.1"})
	runKilled(ctx, t, f, renumber.Options{KubeProxySyncPeriod: shortSync, Force: true}, func(r *renumber.Runner) error {
		_, err := r.Finish(ctx)
		return err
	})
	checkPhase(ctx, t, s.Client, renumber.PhaseFinished)
	f.checkKept(ctx, t)
	if bridges := listBridges(ctx, t, s.Client); len(bridges) != 0 {
		t.Errorf("bridges left after finish: %v", bridges)
	}
	waitNoCopies(ctx, t, s.Client)
}

// waitNoCopies waits until no bridge EndpointSlice is left: the apiserver's
// controller deletes the copies of a deleted bridge, the renumber those it
// wrote that no bridge adopted.
func waitNoCopies(ctx context.Context, t *testing.T, client kubernetes.Interface) {
	t.Helper()
	var left []string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		l, err := client.DiscoveryV1().EndpointSlices("").List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelManagedBy + "=" + servicebridge.ManagedBy})
		if err != nil {
			return false, err
		}
		left = left[:0]
		for _, s := range l.Items {
			left = append(left, fmt.Sprintf("%s/%s (owners %d)", s.Namespace, s.Name, len(s.OwnerReferences)))
		}
		return len(left) == 0, nil
	})
	if err != nil {
		t.Fatalf("bridge EndpointSlices left: %v (%v)", left, err)
	}
}

func checkPhase(ctx context.Context, t *testing.T, client kubernetes.Interface, want renumber.Phase) {
	t.Helper()
	if st := recordedState(ctx, t, client); st.Phase != want {
		t.Errorf("the record's phase is %s, want %s", st.Phase, want)
	}
}

func listBridges(ctx context.Context, t *testing.T, client kubernetes.Interface) []string {
	t.Helper()
	l, err := client.CoreV1().Services("").List(ctx, metav1.ListOptions{LabelSelector: renumber.BridgeLabel})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range l.Items {
		out = append(out, s.Namespace+"/"+s.Name)
	}
	return out
}

// TestRollbackAfterEachPhase stops the renumber at several points before its
// cut-over, rolls it back (killed after every change and run again) and checks
// the cluster is as it was; after the cut-over rollback refuses. Once the
// kubernetes Service has been deleted, rollback leaves it (and its bridge) and
// says so until the apiserver is rolled back to the old range.
func TestRollbackAfterEachPhase(t *testing.T) {
	ctx := context.Background()
	s, f := rolledCluster(ctx, t, fewServices)
	prefix := s.EtcdPrefix
	to := mustRanges(t, target)
	before := snapshot(ctx, t, s.Client, true)
	// stopAt runs the renumber until at says stop.
	stopAt := func(t *testing.T, at func(n int, msg string) bool) {
		n := 0
		r := renumber.New(s.Client, renumber.Options{KubeProxySyncPeriod: shortSync, To: to, AfterStep: func(msg string) error {
			n++
			if at(n, msg) {
				return errKilled
			}
			return nil
		}})
		if _, err := r.Renumber(ctx); !errors.Is(err, errKilled) {
			t.Fatalf("renumber: %v, want it stopped", err)
		}
	}
	// rollback rolls back, killed after every change and run again, and returns what it left.
	rollback := func(t *testing.T) []string {
		var left []string
		runKilled(ctx, t, f, renumber.Options{KubeProxySyncPeriod: shortSync}, func(r *renumber.Runner) error {
			var err error
			left, err = r.Rollback(ctx)
			// A run killed after its last change left nothing to roll back.
			if errors.Is(err, renumber.ErrNoRenumber) {
				return nil
			}
			return err
		})
		return left
	}
	checkRolledBack := func(t *testing.T) {
		waitServiceCIDRGone(ctx, t, s.Client, renumber.TargetServiceCIDRName)
		if d := diffSnapshots(before, snapshot(ctx, t, s.Client, true)); len(d) > 0 {
			t.Errorf("after the rollback the cluster differs: %v", d)
		}
		waitNoCopies(ctx, t, s.Client)
	}
	for _, stop := range []struct {
		name string
		at   func(n int, msg string) bool
	}{
		{"recorded", func(n int, _ string) bool { return n == 1 }},
		{"target created", func(n int, _ string) bool { return n == 2 }},
		{"services recorded", func(_ int, msg string) bool {
			return strings.HasPrefix(msg, "recorded ") && strings.HasSuffix(msg, "Services")
		}},
		{"slices written ahead", func(_ int, msg string) bool { return strings.Contains(msg, "EndpointSlices written for its bridge") }},
		{"one flipped", func(_ int, msg string) bool { return strings.Contains(msg, "type ExternalName") }},
		{"one bridged", func(_ int, msg string) bool { return strings.Contains(msg, "bridge created") }},
		{"one moved", func(_ int, msg string) bool { return strings.Contains(msg, "back to type") }},
		{"all moved, kubeadm updated", func(_ int, msg string) bool { return strings.Contains(msg, "kubelet-config") }},
		{"kubernetes recorded", func(_ int, msg string) bool { return strings.HasPrefix(msg, "recorded Service default/kubernetes") }},
	} {
		t.Run(stop.name, func(t *testing.T) {
			stopAt(t, stop.at)
			if left := rollback(t); len(left) != 0 {
				t.Fatalf("rollback left %q", left)
			}
			checkRolledBack(t)
		})
	}

	// Once the kubernetes Service is deleted, the apiserver recreates it where
	// its flags say: rollback leaves it, and its bridge, until the apiserver is
	// rolled back to the old range. These restart the apiserver, so they run
	// in the test itself, which the apiserver's cleanup belongs to.
	roll := func(ranges string, sans ...string) {
		s.Stop()
		s = startRolled(t, prefix, ranges, sans...)
		markRolled(ctx, t, s.Client, ranges)
		f.client = s.Client
	}
	for _, stop := range []struct {
		name string
		at   func(n int, msg string) bool
	}{
		{"kubernetes deleted", func(_ int, msg string) bool { return strings.HasPrefix(msg, "Service default/kubernetes deleted") }},
		{"kubernetes bridged", func(_ int, msg string) bool {
			return strings.Contains(msg, renumber.KubernetesBridgeName+": bridge created")
		}},
	} {
		stopAt(t, stop.at)
		want := "roll the apiservers back to --service-cluster-ip-range=" + oldRange + ", then run rollback again"
		if left := rollback(t); len(left) != 1 || !strings.Contains(left[0], want) {
			t.Fatalf("%s: rollback with the apiserver serving the target left %q; want one line with %q", stop.name, left, want)
		}
		checkPhase(ctx, t, s.Client, renumber.PhaseRollingBack)
		roll(oldRange)
		if left := rollback(t); len(left) != 0 {
			t.Fatalf("%s: rollback with the apiserver rolled back left %q", stop.name, left)
		}
		checkRolledBack(t)
		roll(target, targetSANs...)
	}

	// StopBeforeCutOver stops with everything moved, the kubernetes Service
	// too, in phase Moving; the next run cuts over.
	var log strings.Builder
	if _, err := renumber.New(s.Client, renumber.Options{KubeProxySyncPeriod: shortSync, To: to, StopBeforeCutOver: true, Log: &log}).Renumber(ctx); err != nil {
		t.Fatal(err)
	}
	checkPhase(ctx, t, s.Client, renumber.PhaseMoving)
	if k, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else if !to.Contains(netip.MustParseAddr(k.Spec.ClusterIP)) {
		t.Errorf("stopped before the cut-over: the kubernetes Service is at %s; want it in %s", k.Spec.ClusterIP, to)
	}
	if !strings.Contains(log.String(), renumber.StoppedBeforeCutOver) {
		t.Errorf("renumber with StopBeforeCutOver does not say it stopped:\n%s", log.String())
	}
	if _, err := renumber.New(s.Client, renumber.Options{KubeProxySyncPeriod: shortSync}).Renumber(ctx); err != nil {
		t.Fatal(err)
	}
	checkPhase(ctx, t, s.Client, renumber.PhaseRenumbered)
	snap := snapshot(ctx, t, s.Client, false)
	_, err := renumber.New(s.Client, renumber.Options{KubeProxySyncPeriod: shortSync}).Rollback(ctx)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "--to "+oldRange) {
		t.Errorf("rollback after the cut-over: %v; want one line naming --to %s", err, oldRange)
	}
	if d := diffSnapshots(snap, snapshot(ctx, t, s.Client, false)); len(d) > 0 {
		t.Errorf("the refused rollback changed %v", d)
	}
	if _, err := s.Client.CoreV1().ConfigMaps(renumber.StateNamespace).Get(ctx, renumber.StateName, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		t.Errorf("the refused rollback deleted the state")
	}
}
