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
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// t0 is when the tests' deletions start, on the fake clock.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestBlockingAddress(t *testing.T) {
	deleting := deletingSince(t0)
	tests := []struct {
		name  string
		cidrs []*networkingv1.ServiceCIDR
		ips   []string
		want  string // the blocking address of "target", "" for none
	}{
		{name: "no address",
			cidrs: []*networkingv1.ServiceCIDR{newServiceCIDR("target", []string{"10.0.0.0/24"}, deleting)}},
		{name: "an address inside and nothing else",
			cidrs: []*networkingv1.ServiceCIDR{newServiceCIDR("target", []string{"10.0.0.0/24"}, deleting)},
			ips:   []string{"10.0.1.9", "10.0.0.9", "10.0.0.7"},
			want:  "10.0.0.7"},
		{name: "the network and broadcast addresses are not inside",
			cidrs: []*networkingv1.ServiceCIDR{newServiceCIDR("target", []string{"10.0.0.0/24"}, deleting)},
			ips:   []string{"10.0.0.0", "10.0.0.255"}},
		{name: "a larger ready ServiceCIDR covers",
			cidrs: []*networkingv1.ServiceCIDR{
				newServiceCIDR("target", []string{"10.0.0.0/24"}, deleting),
				newServiceCIDR("large", []string{"10.0.0.0/23"}, withReady(metav1.ConditionTrue)),
			},
			ips: []string{"10.0.0.7", "10.0.0.255"}},
		{name: "a ServiceCIDR without a Ready condition yet covers",
			cidrs: []*networkingv1.ServiceCIDR{
				newServiceCIDR("target", []string{"10.0.0.0/24"}, deleting),
				newServiceCIDR("new", []string{"10.0.0.0/24"}),
			},
			ips: []string{"10.0.0.7"}},
		{name: "a ServiceCIDR being deleted too does not cover",
			cidrs: []*networkingv1.ServiceCIDR{
				newServiceCIDR("target", []string{"10.0.0.0/24"}, deleting),
				newServiceCIDR("twin", []string{"10.0.0.0/24"}, deleting),
			},
			ips:  []string{"10.0.0.7"},
			want: "10.0.0.7"},
		{name: "a ServiceCIDR that is not ready does not cover",
			cidrs: []*networkingv1.ServiceCIDR{
				newServiceCIDR("target", []string{"10.0.0.0/24"}, deleting),
				newServiceCIDR("sick", []string{"10.0.0.0/23"}, withReady(metav1.ConditionFalse)),
			},
			ips:  []string{"10.0.0.7"},
			want: "10.0.0.7"},
		{name: "smaller ServiceCIDRs cover part; an address in the rest blocks",
			cidrs: []*networkingv1.ServiceCIDR{
				newServiceCIDR("target", []string{"10.0.0.0/24"}, deleting),
				newServiceCIDR("low", []string{"10.0.0.0/25"}),
				newServiceCIDR("high", []string{"10.0.0.128/26"}),
			},
			ips:  []string{"10.0.0.5", "10.0.0.130", "10.0.0.128", "10.0.0.200"},
			want: "10.0.0.128"}, // the network address of "high" is not inside it
		{name: "dual-stack: the IPv6 half blocks",
			cidrs: []*networkingv1.ServiceCIDR{
				newServiceCIDR("target", []string{"10.0.0.0/24", "fd00::/64"}, deleting),
				newServiceCIDR("v4", []string{"10.0.0.0/16"}),
			},
			ips:  []string{"10.0.0.7", "fd00::ab"},
			want: "fd00::ab"},
		{name: "dual-stack: an address of the other family outside both",
			cidrs: []*networkingv1.ServiceCIDR{
				newServiceCIDR("target", []string{"10.0.0.0/24", "fd00::/64"}, deleting),
				newServiceCIDR("both", []string{"10.0.0.0/16", "fd00::/48"}),
			},
			ips: []string{"10.0.0.7", "fd00::ab", "fd01::1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var objects []runtime.Object
			for _, c := range tc.cidrs {
				objects = append(objects, c)
			}
			for _, ip := range tc.ips {
				objects = append(objects, newIPAddress(ip))
			}
			f := newFixture(t, t0, objects...)
			target, err := f.ctrl.cidrLister.Get("target")
			if err != nil {
				t.Fatalf("lister: %v", err)
			}
			got, blocked := f.ctrl.blockingAddress(target)
			if blocked != (tc.want != "") || (blocked && got.String() != tc.want) {
				t.Errorf("blockingAddress() = %v, %v; want %q", got, blocked, tc.want)
			}
		})
	}
}

func TestProtectsLiveServiceCIDRs(t *testing.T) {
	f := start(t, t0,
		newServiceCIDR("plain", []string{"10.0.0.0/24"}),
		newServiceCIDR("other-finalizer", []string{"10.1.0.0/24"}, withFinalizer("example.com/keep")),
	)
	f.eventually(t, "plain", "finalizer and Ready=True", func(c *networkingv1.ServiceCIDR) bool {
		return hasFinalizer(c) && readyIs(metav1.ConditionTrue, "")(c) && readyMessageOf(c) == readyMessage
	})
	f.eventually(t, "other-finalizer", "both finalizers", func(c *networkingv1.ServiceCIDR) bool {
		return hasFinalizer(c) && len(c.Finalizers) == 2 && c.Finalizers[0] == "example.com/keep"
	})

	// a ServiceCIDR created later is protected too
	if _, err := f.client.NetworkingV1().ServiceCIDRs().Create(context.Background(),
		newServiceCIDR("later", []string{"fd00::/64"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.eventually(t, "later", "finalizer and Ready=True", func(c *networkingv1.ServiceCIDR) bool {
		return hasFinalizer(c) && readyIs(metav1.ConditionTrue, "")(c)
	})
	if ev := f.events(); len(ev) != 0 {
		t.Errorf("events = %q, want none", ev)
	}
}

func TestReleasesEmptyServiceCIDRAfterGracePeriod(t *testing.T) {
	f := start(t, t0, newServiceCIDR("empty", []string{"10.0.0.0/24"}, deletingSince(t0)))

	f.handledAll(t)
	f.holds(t, "empty", "finalizer kept during the grace period", hasFinalizer)
	// due when empty's release would be, were it a second early
	due := f.dueSentinel(t, t0.Add(-time.Second))
	f.clock.Step(DefaultDeletionGracePeriod - time.Second)
	f.eventually(t, due, "released at the end of its grace period", func(c *networkingv1.ServiceCIDR) bool { return !hasFinalizer(c) })
	f.holds(t, "empty", "finalizer kept 1 s before the grace period ends", hasFinalizer)
	f.clock.Step(time.Second)
	f.eventually(t, "empty", "finalizer removed at the end of the grace period", func(c *networkingv1.ServiceCIDR) bool { return !hasFinalizer(c) })
	if ev := f.events(); len(ev) != 0 {
		t.Errorf("events = %q, want none", ev)
	}
}

func TestKeepsOtherFinalizersOnRelease(t *testing.T) {
	f := start(t, t0.Add(DefaultDeletionGracePeriod),
		newServiceCIDR("shared", []string{"10.0.0.0/24"}, withFinalizer("example.com/keep"), deletingSince(t0)))
	f.eventually(t, "shared", "only netfork's finalizer removed", func(c *networkingv1.ServiceCIDR) bool {
		return !hasFinalizer(c) && len(c.Finalizers) == 1 && c.Finalizers[0] == "example.com/keep"
	})
}

func TestBlockedUntilAddressesGo(t *testing.T) {
	f := start(t, t0.Add(2*DefaultDeletionGracePeriod),
		newServiceCIDR("busy", []string{"10.0.0.0/24"}, deletingSince(t0)),
		newIPAddress("10.0.0.20"), newIPAddress("10.0.0.10"), newIPAddress("10.0.1.10"))

	f.eventually(t, "busy", "Ready=False Terminating naming 10.0.0.10", func(c *networkingv1.ServiceCIDR) bool {
		return readyIs(metav1.ConditionFalse, networkingv1.ServiceCIDRReasonTerminating)(c) &&
			strings.Contains(readyMessageOf(c), "IPAddress 10.0.0.10 ")
	})
	if !hasFinalizer(f.get(t, "busy")) {
		t.Fatal("finalizer removed while 10.0.0.10 and 10.0.0.20 are inside")
	}

	deleteIP(t, f, "10.0.0.10")
	f.eventually(t, "busy", "message moves to 10.0.0.20", func(c *networkingv1.ServiceCIDR) bool {
		return strings.Contains(readyMessageOf(c), "IPAddress 10.0.0.20 ") && hasFinalizer(c)
	})
	deleteIP(t, f, "10.0.0.20")
	f.eventually(t, "busy", "finalizer removed once empty", func(c *networkingv1.ServiceCIDR) bool { return !hasFinalizer(c) })

	ev := f.events()
	if len(ev) != 1 || !strings.HasPrefix(ev[0], "Warning "+ReasonDeletionBlocked+" IPAddress 10.0.0.10 ") {
		t.Errorf("events = %q, want one Warning %s naming 10.0.0.10", ev, ReasonDeletionBlocked)
	}
}

func TestAddressDuringGracePeriodBlocks(t *testing.T) {
	f := start(t, t0, newServiceCIDR("late", []string{"10.0.0.0/24"}, deletingSince(t0)))
	f.handledAll(t)
	f.holds(t, "late", "finalizer kept during the grace period", hasFinalizer)

	// an apiserver that had not seen the deletion yet allocated from it
	if _, err := f.client.NetworkingV1().IPAddresses().Create(context.Background(), newIPAddress("10.0.0.99"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.eventually(t, "late", "Ready=False Terminating", readyIs(metav1.ConditionFalse, networkingv1.ServiceCIDRReasonTerminating))
	// due after late's release would be, had the address not blocked it
	due := f.dueSentinel(t, t0.Add(DefaultDeletionGracePeriod))
	f.clock.Step(2 * DefaultDeletionGracePeriod)
	f.eventually(t, due, "released at the end of its grace period", func(c *networkingv1.ServiceCIDR) bool { return !hasFinalizer(c) })
	f.holds(t, "late", "finalizer kept after the grace period while 10.0.0.99 is inside", hasFinalizer)
	if ev := f.events(); len(ev) != 1 || !strings.Contains(ev[0], "10.0.0.99") {
		t.Errorf("events = %q, want one naming 10.0.0.99", ev)
	}
}

func TestCoveringServiceCIDRReleases(t *testing.T) {
	f := start(t, t0.Add(DefaultDeletionGracePeriod),
		newServiceCIDR("small", []string{"10.0.0.0/24"}, deletingSince(t0)),
		newIPAddress("10.0.0.10"))
	f.eventually(t, "small", "blocked", readyIs(metav1.ConditionFalse, networkingv1.ServiceCIDRReasonTerminating))

	if _, err := f.client.NetworkingV1().ServiceCIDRs().Create(context.Background(),
		newServiceCIDR("large", []string{"10.0.0.0/23"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.eventually(t, "small", "released once large is ready", func(c *networkingv1.ServiceCIDR) bool { return !hasFinalizer(c) })
	if large := f.get(t, "large"); !readyIs(metav1.ConditionTrue, "")(large) {
		t.Errorf("large is not Ready=True: %+v", large.Status)
	}
}

func deleteIP(t *testing.T, f *fixture, ip string) {
	t.Helper()
	if err := f.client.NetworkingV1().IPAddresses().Delete(context.Background(), ip, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting IPAddress %s: %v", ip, err)
	}
}
