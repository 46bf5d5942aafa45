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

package servicecidrs

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// fastElection makes terms short enough for a unit test, with a renew
// deadline a loaded machine still meets.
func fastElection(identity string) *LeaderElection {
	return &LeaderElection{Identity: identity, LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 100 * time.Millisecond}
}

// candidate runs RunLeading in the background and counts its terms.
type candidate struct {
	terms    atomic.Int32
	leading  atomic.Bool
	cancel   context.CancelFunc
	done     chan error
	stopOnce sync.Once
}

func stand(t *testing.T, client kubernetes.Interface, le *LeaderElection) *candidate {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &candidate{cancel: cancel, done: make(chan error, 1)}
	go func() {
		c.done <- RunLeading(ctx, client, le, func(ctx context.Context) {
			c.terms.Add(1)
			c.leading.Store(true)
			<-ctx.Done()
			c.leading.Store(false)
		})
	}()
	t.Cleanup(func() { c.stop(t) })
	return c
}

// leaseReads counts one candidate's reads of the Lease: a candidate that does
// not lead reads it at each try to acquire it.
type leaseReads struct {
	kubernetes.Interface
	n *atomic.Int32
}

func (c leaseReads) CoordinationV1() coordinationv1client.CoordinationV1Interface {
	return coordinationReads{c.Interface.CoordinationV1(), c.n}
}

type coordinationReads struct {
	coordinationv1client.CoordinationV1Interface
	n *atomic.Int32
}

func (c coordinationReads) Leases(namespace string) coordinationv1client.LeaseInterface {
	return leaseGets{c.CoordinationV1Interface.Leases(namespace), c.n}
}

type leaseGets struct {
	coordinationv1client.LeaseInterface
	n *atomic.Int32
}

func (c leaseGets) Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordinationv1.Lease, error) {
	c.n.Add(1)
	return c.LeaseInterface.Get(ctx, name, opts)
}

func (c *candidate) stop(t *testing.T) {
	t.Helper()
	c.stopOnce.Do(func() {
		c.cancel()
		select {
		case err := <-c.done:
			if err != nil {
				t.Errorf("RunLeading: %v", err)
			}
		case <-time.After(waitTimeout):
			t.Errorf("RunLeading did not return after its context ended")
		}
	})
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, waitTimeout, true,
		func(context.Context) (bool, error) { return cond(), nil }); err != nil {
		t.Fatalf("%s did not happen", what)
	}
}

func holder(t *testing.T, client *fake.Clientset) string {
	t.Helper()
	lease, err := client.CoordinationV1().Leases(LeaseNamespace).Get(context.Background(), LeaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting the Lease: %v", err)
	}
	return ptr.Deref(lease.Spec.HolderIdentity, "")
}

func TestRunLeadingWithoutElection(t *testing.T) {
	client := fake.NewClientset()
	ctx, cancel := context.WithCancel(context.Background())
	ran := false
	go cancel()
	if err := RunLeading(ctx, client, nil, func(ctx context.Context) {
		ran = true
		<-ctx.Done()
	}); err != nil {
		t.Fatalf("RunLeading: %v", err)
	}
	if !ran {
		t.Error("run was not called")
	}
	_, err := client.CoordinationV1().Leases(LeaseNamespace).Get(context.Background(), LeaseName, metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("Lease lookup = %v, want NotFound: no election without a LeaderElection", err)
	}
}

func TestRunLeadingNeedsIdentity(t *testing.T) {
	err := RunLeading(context.Background(), fake.NewClientset(), &LeaderElection{}, func(context.Context) {
		t.Error("run was called without an identity")
	})
	if err == nil || err.Error() != "leader election for kube-system/netfork-service-cidr-controller needs an identity" {
		t.Errorf("RunLeading() = %v, want the missing identity named", err)
	}
}

func TestRunLeadingHandsOver(t *testing.T) {
	client := fake.NewClientset()
	a := stand(t, client, fastElection("apiserver-a"))
	waitFor(t, "a leading", a.leading.Load)
	if got := holder(t, client); got != "apiserver-a" {
		t.Fatalf("Lease holder = %q, want apiserver-a", got)
	}

	var bReads atomic.Int32
	b := stand(t, leaseReads{client, &bReads}, fastElection("apiserver-b"))
	// the fourth read starts after b's third try at a's Lease ended
	waitFor(t, "three of b's tries to acquire a's Lease", func() bool { return bReads.Load() >= 4 || b.terms.Load() != 0 })
	if b.terms.Load() != 0 {
		t.Fatal("b ran while a held the Lease")
	}

	a.stop(t)
	if a.leading.Load() {
		t.Fatal("a's run did not end with its context")
	}
	waitFor(t, "b leading after a released the Lease", b.leading.Load)
	if got := holder(t, client); got != "apiserver-b" {
		t.Errorf("Lease holder = %q, want apiserver-b", got)
	}
}

func TestRunLeadingStandsAgainAfterLosingTheLease(t *testing.T) {
	client := fake.NewClientset()
	// The fake clientset has no optimistic concurrency: refuse, as the
	// apiserver would, a write over a valid Lease another holder renewed.
	client.PrependReactor("update", "leases", func(action clienttesting.Action) (bool, runtime.Object, error) {
		stored, err := client.Tracker().Get(coordinationv1.SchemeGroupVersion.WithResource("leases"), LeaseNamespace, LeaseName)
		if err != nil {
			return false, nil, nil
		}
		current, update := stored.(*coordinationv1.Lease), action.(clienttesting.UpdateAction).GetObject().(*coordinationv1.Lease)
		holder := ptr.Deref(current.Spec.HolderIdentity, "")
		valid := current.Spec.RenewTime != nil && current.Spec.LeaseDurationSeconds != nil &&
			time.Since(current.Spec.RenewTime.Time) < time.Duration(*current.Spec.LeaseDurationSeconds)*time.Second
		if holder != ptr.Deref(update.Spec.HolderIdentity, "") && valid {
			return true, nil, apierrors.NewConflict(coordinationv1.Resource("leases"), LeaseName, fmt.Errorf("held by %s", holder))
		}
		return false, nil, nil
	})

	a := stand(t, client, fastElection("apiserver-a"))
	waitFor(t, "a leading", a.leading.Load)

	// Another holder takes the Lease over and holds it until a has stopped
	// leading: however late a loaded machine runs a's renewals, the Lease is
	// still valid then. Only after that does the intruder's Lease expire.
	intrude := func(renewed time.Time, seconds int32) {
		t.Helper()
		lease, err := client.CoordinationV1().Leases(LeaseNamespace).Get(context.Background(), LeaseName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lease.Spec = coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To("intruder"),
			LeaseDurationSeconds: ptr.To(seconds),
			AcquireTime:          &metav1.MicroTime{Time: renewed},
			RenewTime:            &metav1.MicroTime{Time: renewed},
		}
		if err := client.Tracker().Update(coordinationv1.SchemeGroupVersion.WithResource("leases"), lease, LeaseNamespace); err != nil {
			t.Fatal(err)
		}
	}
	intrude(time.Now(), 3600)
	waitFor(t, "a stops leading", func() bool { return !a.leading.Load() })
	if got := a.terms.Load(); got != 1 {
		t.Fatalf("a led %d terms while the intruder held the Lease, want 1", got)
	}

	// the intruder's Lease, renewed an hour ago for one second, has expired
	intrude(time.Now().Add(-time.Hour), 1)
	waitFor(t, "a leads a second term once the intruder's Lease expired", func() bool { return a.terms.Load() == 2 && a.leading.Load() })
}
