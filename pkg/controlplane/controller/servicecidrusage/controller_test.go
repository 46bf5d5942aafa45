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

package servicecidrusage

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/netfork/netfork/pkg/controlplane/controller/servicecidrtest"
	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
)

// usageMap is a UsageReader whose counts the test sets.
type usageMap struct {
	mu sync.Mutex
	m  map[netip.Prefix]ipallocator.Usage
}

func (u *usageMap) Usage(p netip.Prefix) (ipallocator.Usage, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	v, ok := u.m[p]
	return v, ok
}

func (u *usageMap) set(p string, usable, used uint64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.m[netip.MustParsePrefix(p)] = ipallocator.Usage{Used: used, Usable: usable, Free: usable - used}
}

// fixture drives sync by hand: the lister's store is fed from the fake clientset after each sync.
type fixture struct {
	client   *fake.Clientset
	factory  informers.SharedInformerFactory
	ctrl     *Controller
	usage    *usageMap
	recorder *events.FakeRecorder
	clock    *clocktesting.FakeClock
}

func newFixture(t *testing.T, cidrs ...*networkingv1.ServiceCIDR) *fixture {
	t.Helper()
	f := &fixture{
		client:   fake.NewClientset(),
		usage:    &usageMap{m: map[netip.Prefix]ipallocator.Usage{}},
		recorder: events.NewFakeRecorder(100),
		clock:    clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
	}
	for _, c := range cidrs {
		if _, err := f.client.NetworkingV1().ServiceCIDRs().Create(context.Background(), c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	f.factory = informers.NewSharedInformerFactory(f.client, 0)
	networking := f.factory.Networking().V1()
	ctrl, err := New(f.client, networking.ServiceCIDRs(), networking.IPAddresses().Informer(), f.usage, WithRecorder(f.recorder), WithClock(f.clock))
	if err != nil {
		t.Fatal(err)
	}
	f.ctrl = ctrl
	t.Cleanup(ctrl.handlers.Remove)
	for _, c := range cidrs {
		f.refresh(t, c.Name)
	}
	return f
}

// refresh puts the clientset's copy of name into the lister's store.
func (f *fixture) refresh(t *testing.T, name string) {
	t.Helper()
	c, err := f.client.NetworkingV1().ServiceCIDRs().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.factory.Networking().V1().ServiceCIDRs().Informer().GetStore().Update(c); err != nil {
		t.Fatal(err)
	}
}

// sync runs one sync of name and returns how many status writes it made.
func (f *fixture) sync(t *testing.T, name string) int {
	t.Helper()
	f.client.ClearActions()
	if err := f.ctrl.sync(context.Background(), name); err != nil {
		t.Fatalf("sync %s: %v", name, err)
	}
	writes := 0
	for _, a := range f.client.Actions() {
		if a.GetSubresource() == "status" && a.GetVerb() != "get" {
			writes++
		}
	}
	f.refresh(t, name)
	return writes
}

func (f *fixture) condition(t *testing.T, name string) *metav1.Condition {
	t.Helper()
	c, err := f.client.NetworkingV1().ServiceCIDRs().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return apimeta.FindStatusCondition(c.Status.Conditions, ConditionType)
}

func serviceCIDR(name string, cidrs ...string) *networkingv1.ServiceCIDR {
	return &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: cidrs}}
}

// TestHysteresis walks one CIDR of 100 usable addresses up and down across
// the thresholds: a write and an event at each change of level, none between.
func TestHysteresis(t *testing.T) {
	const prefix = "10.0.0.0/25"
	f := newFixture(t, serviceCIDR("kubernetes", prefix))
	steps := []struct {
		used       uint64
		wantStatus metav1.ConditionStatus // "" for no condition
		wantReason string
		wantEvent  string
	}{
		{used: 50},
		{used: 89},
		{used: 90, wantStatus: metav1.ConditionTrue, wantReason: ReasonNearlyFull, wantEvent: "Warning NearlyFull"},
		{used: 86, wantStatus: metav1.ConditionTrue, wantReason: ReasonNearlyFull},
		{used: 89, wantStatus: metav1.ConditionTrue, wantReason: ReasonNearlyFull},
		{used: 85, wantStatus: metav1.ConditionTrue, wantReason: ReasonNearlyFull},
		{used: 100, wantStatus: metav1.ConditionTrue, wantReason: ReasonFull, wantEvent: "Warning Full"},
		{used: 99, wantStatus: metav1.ConditionTrue, wantReason: ReasonFull},
		{used: 90, wantStatus: metav1.ConditionTrue, wantReason: ReasonFull},
		{used: 89, wantStatus: metav1.ConditionTrue, wantReason: ReasonNearlyFull, wantEvent: "Warning NearlyFull"},
		{used: 85, wantStatus: metav1.ConditionTrue, wantReason: ReasonNearlyFull},
		{used: 84, wantStatus: metav1.ConditionFalse, wantReason: ReasonHasRoom, wantEvent: "Normal HasRoom"},
		{used: 89, wantStatus: metav1.ConditionFalse, wantReason: ReasonHasRoom},
		{used: 100, wantStatus: metav1.ConditionTrue, wantReason: ReasonFull, wantEvent: "Warning Full"},
	}
	var lastStatus metav1.ConditionStatus
	var lastTransition metav1.Time
	for i, s := range steps {
		f.usage.set(prefix, 100, s.used)
		f.clock.Step(time.Minute)
		writes := f.sync(t, "kubernetes")
		evs := servicecidrtest.Events(f.recorder)
		name := fmt.Sprintf("step %d (%d used)", i, s.used)

		wantWrites := 0
		if s.wantEvent != "" {
			wantWrites = 1
		}
		if writes != wantWrites {
			t.Errorf("%s: %d status writes, want %d", name, writes, wantWrites)
		}
		switch {
		case s.wantEvent == "" && len(evs) > 0:
			t.Errorf("%s: events %v, want none", name, evs)
		case s.wantEvent != "" && (len(evs) != 1 || !strings.HasPrefix(evs[0], s.wantEvent)):
			t.Errorf("%s: events %v, want one %q", name, evs, s.wantEvent)
		}
		c := f.condition(t, "kubernetes")
		if s.wantStatus == "" {
			if c != nil {
				t.Errorf("%s: condition %+v, want none", name, c)
			}
			continue
		}
		if c == nil || c.Status != s.wantStatus || c.Reason != s.wantReason {
			t.Fatalf("%s: condition %+v, want %s/%s", name, c, s.wantStatus, s.wantReason)
		}
		// The transition time moves with the status only.
		if c.Status != lastStatus {
			if !c.LastTransitionTime.Time.Equal(f.clock.Now().Truncate(time.Second)) {
				t.Errorf("%s: lastTransitionTime %v, want now %v", name, c.LastTransitionTime, f.clock.Now())
			}
			lastStatus, lastTransition = c.Status, c.LastTransitionTime
		} else if !c.LastTransitionTime.Equal(&lastTransition) {
			t.Errorf("%s: lastTransitionTime moved to %v without a status change", name, c.LastTransitionTime)
		}
	}
}

// TestDualStackWorstCIDRDecides: a full secondary CIDR makes the ServiceCIDR
// Full, and a CIDR this apiserver has no counts for is left out.
func TestDualStackWorstCIDRDecides(t *testing.T) {
	f := newFixture(t, serviceCIDR("dual", "10.0.0.0/28", "fd00::/120"), serviceCIDR("elsewhere", "10.1.0.0/28"))
	f.usage.set("10.0.0.0/28", 14, 1)
	f.usage.set("fd00::/120", 255, 255)
	if writes := f.sync(t, "dual"); writes != 1 {
		t.Fatalf("%d status writes, want 1", writes)
	}
	c := f.condition(t, "dual")
	if c == nil || c.Reason != ReasonFull || !strings.HasPrefix(c.Message, "fd00::/120: 255 of 255 addresses used (100%), 0 free") {
		t.Errorf("condition = %+v, want Full naming fd00::/120", c)
	}
	if writes := f.sync(t, "elsewhere"); writes != 0 || f.condition(t, "elsewhere") != nil {
		t.Errorf("a ServiceCIDR without counts here got %d writes, condition %+v; want none", writes, f.condition(t, "elsewhere"))
	}
}

// TestIPAddressEventQueuesItsServiceCIDR: an IPAddress event queues the
// ServiceCIDRs holding the address, and only those.
func TestIPAddressEventQueuesItsServiceCIDR(t *testing.T) {
	f := newFixture(t, serviceCIDR("a", "10.0.0.0/28"), serviceCIDR("b", "10.0.1.0/28"), serviceCIDR("both", "10.0.0.0/16"))
	f.ctrl.onIPAddress(&networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: "10.0.0.5"}})
	if n := f.ctrl.queue.Len(); n != 0 {
		t.Fatalf("%d keys queued at once, want none before countDelay", n)
	}
	f.clock.Step(countDelay)
	var got []string
	for i := 0; i < 2; i++ {
		if err := waitQueued(f.ctrl); err != nil {
			t.Fatal(err)
		}
		key, _ := f.ctrl.queue.Get()
		got = append(got, key)
		f.ctrl.queue.Done(key)
	}
	if strings.Join(got, ",") != "a,both" && strings.Join(got, ",") != "both,a" {
		t.Errorf("queued %v, want a and both", got)
	}
	if n := f.ctrl.queue.Len(); n != 0 {
		t.Errorf("%d more keys queued, want none", n)
	}
}

// waitQueued waits for the delaying queue to move a key in, which it does
// from its own goroutine once the fake clock has passed the delay.
func waitQueued(c *Controller) error {
	deadline := time.Now().Add(servicecidrtest.Timeout)
	for c.queue.Len() == 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing queued after countDelay")
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}
