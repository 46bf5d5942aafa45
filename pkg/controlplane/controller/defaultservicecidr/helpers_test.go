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

package defaultservicecidr

import (
	"context"
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	networkingv1listers "k8s.io/client-go/listers/networking/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/pkg/controlplane/controller/internal/fakewatch"
	"github.com/netfork/netfork/pkg/controlplane/controller/servicecidrtest"
)

// waitTimeout bounds every wait for the controller to act on a fake client.
const waitTimeout = servicecidrtest.Timeout

func mustCIDR(t *testing.T, s string) net.IPNet {
	t.Helper()
	if s == "" {
		return net.IPNet{}
	}
	_, ipnet, err := netutils.ParseCIDRSloppy(s)
	if err != nil {
		t.Fatalf("parsing %q: %v", s, err)
	}
	return *ipnet
}

func serviceCIDR(name string, cidrs ...string) *networkingv1.ServiceCIDR {
	return &networkingv1.ServiceCIDR{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: "uid-" + "1"},
		Spec:       networkingv1.ServiceCIDRSpec{CIDRs: cidrs},
	}
}

func withCondition(c *networkingv1.ServiceCIDR, status metav1.ConditionStatus, reason, message string) *networkingv1.ServiceCIDR {
	c.Status.Conditions = []metav1.Condition{{Type: networkingv1.ServiceCIDRConditionReady, Status: status, Reason: reason, Message: message}}
	return c
}

// fixture is a controller for the given flags over a fake clientset.
type fixture struct {
	client   *fake.Clientset
	recorder *events.FakeRecorder
	ctrl     *Controller
	lister   *countingLister
	// watching waits until the controller's informer watches ServiceCIDRs.
	watching func(testing.TB)
}

// countingLister counts the controller's look-ups of the default ServiceCIDR:
// a sync makes exactly one, first, and the single worker runs one sync at a time.
type countingLister struct {
	networkingv1listers.ServiceCIDRLister
	gets atomic.Int64
}

func (l *countingLister) Get(name string) (*networkingv1.ServiceCIDR, error) {
	l.gets.Add(1)
	return l.ServiceCIDRLister.Get(name)
}

func newFixture(t *testing.T, primary, secondary string, objects ...runtime.Object) *fixture {
	t.Helper()
	f := &fixture{client: fake.NewClientset(objects...), recorder: events.NewFakeRecorder(100)}
	f.watching = fakewatch.Started(f.client, "servicecidrs")
	// the fake clientset creates an object a status apply names; the apiserver answers NotFound
	f.client.PrependReactor("patch", "servicecidrs", func(a clienttesting.Action) (bool, runtime.Object, error) {
		patch := a.(clienttesting.PatchAction)
		if a.GetSubresource() != "status" {
			return false, nil, nil
		}
		if _, err := f.client.Tracker().Get(a.GetResource(), "", patch.GetName()); err != nil {
			return true, nil, err
		}
		return false, nil, nil
	})
	f.ctrl = New(mustCIDR(t, primary), mustCIDR(t, secondary), f.client,
		WithRecorder(f.recorder), WithResyncInterval(50*time.Millisecond))
	f.lister = &countingLister{ServiceCIDRLister: f.ctrl.lister}
	f.ctrl.lister = f.lister
	return f
}

// startAsync runs the controller until the test ends; the channel closes when Start returns.
func (f *fixture) startAsync(t *testing.T) <-chan struct{} {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		f.ctrl.Start(ctx)
	}()
	return returned
}

// start runs the controller and waits for Start to return.
func (f *fixture) start(t *testing.T) {
	t.Helper()
	select {
	case <-f.startAsync(t):
	case <-time.After(waitTimeout):
		t.Fatal("Start did not return: the default ServiceCIDR was never seen or created")
	}
	f.watching(t)
}

func (f *fixture) get(t *testing.T) *networkingv1.ServiceCIDR {
	t.Helper()
	c, err := f.client.NetworkingV1().ServiceCIDRs().Get(context.Background(), DefaultServiceCIDRName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting the default ServiceCIDR: %v", err)
	}
	return c
}

func (f *fixture) eventually(t *testing.T, what string, cond func(*networkingv1.ServiceCIDR) bool) {
	t.Helper()
	servicecidrtest.Eventually(t, f.client, DefaultServiceCIDRName, what, cond)
}

// syncs waits until the controller has run n more syncs to their end, for
// checks that nothing more happens: the (n+1)th look-up from now starts only
// once the nth sync that started after now has returned.
func (f *fixture) syncs(t *testing.T, n int) {
	t.Helper()
	want := f.lister.gets.Load() + int64(n) + 1
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, waitTimeout, true, func(context.Context) (bool, error) {
		return f.lister.gets.Load() >= want, nil
	})
	if err != nil {
		t.Fatalf("the controller ran %d of %d syncs", f.lister.gets.Load()-want+int64(n)+1, n)
	}
}

func (f *fixture) events() []string { return servicecidrtest.Events(f.recorder) }

// writes are the verbs of the write requests the controller sent.
func (f *fixture) writes() []string {
	var out []string
	for _, a := range f.client.Actions() {
		if v := a.GetVerb(); !slices.Contains([]string{"get", "list", "watch"}, v) {
			out = append(out, v+" "+a.GetResource().Resource+"/"+a.GetSubresource())
		}
	}
	return out
}

func ready(c *networkingv1.ServiceCIDR) bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == networkingv1.ServiceCIDRConditionReady {
			return cond.Status == metav1.ConditionTrue && cond.Message == readyMessage
		}
	}
	return false
}
