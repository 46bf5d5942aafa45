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
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/netfork/netfork/pkg/controlplane/controller/internal/fakewatch"
	"github.com/netfork/netfork/pkg/controlplane/controller/servicecidrtest"
)

// waitTimeout bounds every wait for the controller to act on a fake client.
const waitTimeout = servicecidrtest.Timeout

// cidrOption changes a test ServiceCIDR.
type cidrOption func(*networkingv1.ServiceCIDR)

func deletingSince(t time.Time) cidrOption {
	return func(c *networkingv1.ServiceCIDR) {
		dt := metav1.NewTime(t)
		c.DeletionTimestamp = &dt
		c.Finalizers = append(c.Finalizers, Finalizer)
	}
}

func withReady(status metav1.ConditionStatus) cidrOption {
	return func(c *networkingv1.ServiceCIDR) {
		c.Status.Conditions = append(c.Status.Conditions, metav1.Condition{
			Type: networkingv1.ServiceCIDRConditionReady, Status: status, Reason: "Test",
		})
	}
}

func withFinalizer(f string) cidrOption {
	return func(c *networkingv1.ServiceCIDR) { c.Finalizers = append(c.Finalizers, f) }
}

func newServiceCIDR(name string, cidrs []string, opts ...cidrOption) *networkingv1.ServiceCIDR {
	c := &networkingv1.ServiceCIDR{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       networkingv1.ServiceCIDRSpec{CIDRs: cidrs},
	}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

func newIPAddress(ip string) *networkingv1.IPAddress {
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: ip},
		Spec: networkingv1.IPAddressSpec{
			ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: "svc-" + strings.NewReplacer(".", "-", ":", "-").Replace(ip)},
		},
	}
}

// fixture is a controller on a fake clientset with a fake clock and recorder.
type fixture struct {
	client   *fake.Clientset
	clock    *testingclock.FakeClock
	recorder *events.FakeRecorder
	ctrl     *Controller
	// sentinels counts the sentinel ServiceCIDRs created, to name them apart.
	sentinels int
}

// start builds the controller over objects and runs it until the test ends.
func start(t *testing.T, now time.Time, objects ...runtime.Object) *fixture {
	t.Helper()
	f := newFixture(t, now, objects...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.ctrl.Run(ctx, 1)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return f
}

// newFixture builds the controller and starts its informers, without running it.
func newFixture(t *testing.T, now time.Time, objects ...runtime.Object) *fixture {
	t.Helper()
	f := &fixture{
		clock:    testingclock.NewFakeClock(now),
		recorder: events.NewFakeRecorder(100),
	}
	f.client = fake.NewClientset(objects...)
	watching := fakewatch.Started(f.client, "servicecidrs", "ipaddresses")
	factory := informers.NewSharedInformerFactory(f.client, 0)
	ctrl, err := New(f.client, factory.Networking().V1().ServiceCIDRs(), factory.Networking().V1().IPAddresses().Informer(),
		WithClock(f.clock), WithRecorder(f.recorder), WithDeletionGracePeriod(DefaultDeletionGracePeriod))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	f.ctrl = ctrl
	stop := make(chan struct{})
	factory.Start(stop)
	t.Cleanup(func() {
		close(stop)
		factory.Shutdown()
	})
	if !cache.WaitForCacheSync(stop, ctrl.hasSynced) {
		t.Fatal("the controller's informers did not sync")
	}
	watching(t)
	return f
}

func (f *fixture) get(t *testing.T, name string) *networkingv1.ServiceCIDR {
	t.Helper()
	c, err := f.client.NetworkingV1().ServiceCIDRs().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting ServiceCIDR %s: %v", name, err)
	}
	return c
}

// eventually waits until cond holds for the named ServiceCIDR.
func (f *fixture) eventually(t *testing.T, name, what string, cond func(*networkingv1.ServiceCIDR) bool) {
	t.Helper()
	servicecidrtest.Eventually(t, f.client, name, what, cond)
}

// handledAll creates a live ServiceCIDR, a sentinel whose range no test
// object overlaps, and waits until the controller has protected it. start
// runs one worker over a FIFO queue, so by then everything queued before the
// sentinel has been handled: the controller had its chance to act on it.
func (f *fixture) handledAll(t *testing.T) {
	t.Helper()
	name := f.createSentinel(t)
	f.eventually(t, name, "protected and ready", func(c *networkingv1.ServiceCIDR) bool {
		return hasFinalizer(c) && readyIs(metav1.ConditionTrue, "")(c)
	})
}

// dueSentinel creates an empty sentinel ServiceCIDR being deleted since
// since, so that its release is due DefaultDeletionGracePeriod later on the
// fake clock, and waits until the controller has scheduled it. Its release,
// after the clock is stepped, shows that every release due no later than it
// and scheduled before it (the tests' own) has had its turn.
func (f *fixture) dueSentinel(t *testing.T, since time.Time) string {
	t.Helper()
	name := f.createSentinel(t, deletingSince(since))
	f.handledAll(t)
	return name
}

func (f *fixture) createSentinel(t *testing.T, opts ...cidrOption) string {
	t.Helper()
	f.sentinels++
	name := fmt.Sprintf("sentinel-%d", f.sentinels)
	cidr := newServiceCIDR(name, []string{fmt.Sprintf("10.255.%d.0/24", f.sentinels)}, opts...)
	if _, err := f.client.NetworkingV1().ServiceCIDRs().Create(context.Background(), cidr, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating sentinel ServiceCIDR %s: %v", name, err)
	}
	return name
}

// holds checks cond on the named ServiceCIDR, once a positive signal showed
// the controller had its chance to break it.
func (f *fixture) holds(t *testing.T, name, what string, cond func(*networkingv1.ServiceCIDR) bool) {
	t.Helper()
	if c := f.get(t, name); !cond(c) {
		t.Fatalf("ServiceCIDR %s: %s does not hold: finalizers=%v status=%+v", name, what, c.Finalizers, c.Status)
	}
}

// events drains the recorder's events so far.
func (f *fixture) events() []string { return servicecidrtest.Events(f.recorder) }

func hasFinalizer(c *networkingv1.ServiceCIDR) bool {
	for _, f := range c.Finalizers {
		if f == Finalizer {
			return true
		}
	}
	return false
}

func readyIs(status metav1.ConditionStatus, reason string) func(*networkingv1.ServiceCIDR) bool {
	return func(c *networkingv1.ServiceCIDR) bool {
		for _, cond := range c.Status.Conditions {
			if cond.Type == networkingv1.ServiceCIDRConditionReady {
				return cond.Status == status && cond.Reason == reason
			}
		}
		return false
	}
}

func readyMessageOf(c *networkingv1.ServiceCIDR) string {
	for _, cond := range c.Status.Conditions {
		if cond.Type == networkingv1.ServiceCIDRConditionReady {
			return cond.Message
		}
	}
	return ""
}
