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
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/pkg/controlplane/apiserverranges"
	"github.com/netfork/netfork/pkg/controlplane/controller/servicebridge"
)

// windowPeriod is the kube-proxy sync period checkWindows checks against: the
// default, which a runner of period 0 takes.
const windowPeriod = time.Second

// latency is how long each request takes on the fake clock, unless the
// timeline says otherwise.
const latency = 20 * time.Millisecond

// followUp is how long after a Service's restore kube-controller-manager
// writes its EndpointSlices, another change kube-proxy sees.
const followUp = 200 * time.Millisecond

// event is a request or pause on the fake clock: a change kube-proxy sees
// (copy, uncopy, prime, unprime, hold, unhold, flip, bridge, restore, delete
// or recreate of a Service) when it was made, a change it does not (retarget), a pause
// (sleep) at the time it began, or another request.
type event struct {
	// start and at are when the request was sent and when it was made.
	start, at time.Time
	kind      string
	key       string // namespace/name of the moved Service
	d         time.Duration
	// obj is the namespace/name of the Service a Service request acted on;
	// ips its ClusterIPs after it, cname the namespace/name its
	// ExternalName points at.
	obj, cname string
	ips        []string
	// family is the address type of a copy.
	family discoveryv1.AddressType
}

// timeline is a fake cluster on a fake clock that records every request and pause.
type timeline struct {
	client *fake.Clientset
	now    time.Time
	events []event
	// latency, when set, is how long each request takes instead.
	latency time.Duration
	// slow adds time to the requests of a kind for a Service ("copy apps/s03").
	slow map[string]time.Duration
}

// visible tells whether kube-proxy sees e.
func (e event) visible() bool {
	switch e.kind {
	case "copy", "uncopy", "prime", "unprime", "hold", "unhold", "flip", "bridge", "restore", "delete", "recreate":
		return true
	}
	return false
}

func pacedService(ns, name, ip string, labels map[string]string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Labels: labels},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeClusterIP, ClusterIP: ip, ClusterIPs: []string{ip},
			Selector: map[string]string{"app": name},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}},
		},
	}
}

func pacedSlice(ns, svc string, i int) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%05d", svc, i), Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{fmt.Sprintf("198.18.%d.%d", i/250, i%250+1)}}},
	}
}

// newTimeline is a cluster of n Services in namespace apps, the one named
// big with many EndpointSlices, and the DNS Service, all in 10.96.0.0/16,
// whose requests each take latency; a bridge's create adopts its copies, as
// the apiservers' service-bridge controller would.
func newTimeline(n int) *timeline {
	var objs []runtime.Object
	for i := range n {
		name := fmt.Sprintf("s%02d", i)
		slices := 1
		if i == 5 {
			name, slices = "s05-big", 25
		}
		objs = append(objs, pacedService("apps", name, fmt.Sprintf("10.96.0.%d", 20+i), nil))
		for j := range slices {
			objs = append(objs, pacedSlice("apps", name, j))
		}
	}
	objs = append(objs, pacedService("kube-system", "kube-dns", "10.96.0.10", map[string]string{dnsLabel: dnsLabelValue}), pacedSlice("kube-system", "kube-dns", 0))
	tl := &timeline{client: fake.NewClientset(objs...), now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	tl.client.PrependReactor("*", "*", tl.react)
	return tl
}

// react advances the clock by one request and records it.
func (tl *timeline) react(a k8stesting.Action) (bool, runtime.Object, error) {
	e := event{start: tl.now, kind: a.GetVerb() + " " + a.GetResource().Resource}
	if tl.latency > 0 {
		tl.now = tl.now.Add(tl.latency)
	} else {
		tl.now = tl.now.Add(latency)
	}
	switch a.GetVerb() {
	case "create":
		switch o := a.(k8stesting.CreateAction).GetObject().(type) {
		case *discoveryv1.EndpointSlice:
			e.kind, e.key, e.family = "copy", o.Namespace+"/"+strings.TrimSuffix(o.Labels[discoveryv1.LabelServiceName], "-renumber-bridge"), o.AddressType
			if o.Labels[discoveryv1.LabelManagedBy] == PrimerManagedBy {
				e.kind, e.key = "prime", o.Namespace+"/"+strings.TrimSuffix(o.Labels[discoveryv1.LabelServiceName], "-renumber-primer")
			}
		case *corev1.Service:
			e.obj, e.ips = o.Namespace+"/"+o.Name, o.Spec.ClusterIPs
			switch {
			case strings.HasSuffix(o.Name, "-renumber-holder"):
				e.kind, e.key = "hold", o.Namespace+"/"+o.Labels[BridgeLabel]
				tl.mirror(o)
			case o.Labels[BridgeLabel] != "":
				e.kind, e.key = "bridge", o.Namespace+"/"+o.Labels[BridgeLabel]
				tl.adopt(o.Namespace, o.Name)
			default:
				e.kind, e.key = "recreate", o.Namespace+"/"+o.Name
			}
		}
	case "update":
		if o, ok := a.(k8stesting.UpdateAction).GetObject().(*corev1.Service); ok {
			e.kind, e.key, e.obj, e.ips = "restore", o.Namespace+"/"+o.Name, o.Namespace+"/"+o.Name, o.Spec.ClusterIPs
			if o.Spec.Type == corev1.ServiceTypeExternalName {
				e.kind, e.ips = "flip", nil
				if labels := strings.SplitN(o.Spec.ExternalName, ".", 3); len(labels) == 3 {
					e.cname = labels[1] + "/" + labels[0]
				}
				cur, err := tl.client.Tracker().Get(corev1.SchemeGroupVersion.WithResource("services"), o.Namespace, o.Name)
				if err == nil && cur.(*corev1.Service).Spec.Type == corev1.ServiceTypeExternalName {
					e.kind = "retarget"
				}
			}
		}
	case "delete":
		name := a.GetNamespace() + "/" + a.(k8stesting.DeleteAction).GetName()
		switch a.GetResource().Resource {
		case "endpointslices":
			if i := strings.LastIndex(name, "-renumber-primer"); i >= 0 {
				e.kind, e.key = "unprime", name[:i]
				break
			}
			e.kind, e.key = "uncopy", name[:max(strings.LastIndex(name, "-renumber-bridge"), strings.LastIndex(name, "-renumber-holder"))]
		case "services":
			e.kind, e.key, e.obj = "delete", strings.TrimSuffix(name, "-renumber-bridge"), name
			if strings.HasSuffix(name, "-renumber-holder") {
				e.kind, e.key = "unhold", strings.TrimSuffix(name, "-renumber-holder")
				tl.unmirror(a.GetNamespace(), a.(k8stesting.DeleteAction).GetName())
			}
		}
	}
	tl.now = tl.now.Add(tl.slow[e.kind+" "+e.key])
	e.at = tl.now
	tl.events = append(tl.events, e)
	return false, nil, nil
}

// adopt makes bridge the owner of its copies, through the tracker: the
// clientset is locked while a reactor runs.
func (tl *timeline) adopt(ns, bridge string) {
	gvr := discoveryv1.SchemeGroupVersion.WithResource("endpointslices")
	l, err := tl.client.Tracker().List(gvr, discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"), ns)
	if err != nil {
		panic(err)
	}
	for i := range l.(*discoveryv1.EndpointSliceList).Items {
		s := &l.(*discoveryv1.EndpointSliceList).Items[i]
		if s.Labels[discoveryv1.LabelServiceName] == bridge {
			s.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: bridge, UID: "bridge", Controller: ptr.To(true)}}
			if err := tl.client.Tracker().Update(gvr, s, ns); err != nil {
				panic(err)
			}
		}
	}
}

// mirror writes the copies of a holder's Service's EndpointSlices, owned by
// it, or adopts those written ahead, as the apiservers' service-bridge
// controller would.
func (tl *timeline) mirror(holder *corev1.Service) {
	gvr := discoveryv1.SchemeGroupVersion.WithResource("endpointslices")
	l, err := tl.client.Tracker().List(gvr, discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"), holder.Namespace)
	if err != nil {
		panic(err)
	}
	var sources []*discoveryv1.EndpointSlice
	for i := range l.(*discoveryv1.EndpointSliceList).Items {
		sources = append(sources, &l.(*discoveryv1.EndpointSliceList).Items[i])
	}
	owner := &metav1.OwnerReference{APIVersion: "v1", Kind: "Service", Name: holder.Name, UID: "holder", Controller: ptr.To(true)}
	for _, c := range servicebridge.Mirror(holder.Namespace, holder.Name, owner, holder.Labels[BridgeLabel], sources) {
		err := tl.client.Tracker().Create(gvr, c, holder.Namespace)
		if apierrors.IsAlreadyExists(err) {
			err = tl.client.Tracker().Update(gvr, c, holder.Namespace) // written ahead: adopted
		}
		if err != nil {
			panic(err)
		}
	}
}

// unmirror deletes the copies a deleted holder owned, as the garbage collector would.
func (tl *timeline) unmirror(ns, holder string) {
	gvr := discoveryv1.SchemeGroupVersion.WithResource("endpointslices")
	l, err := tl.client.Tracker().List(gvr, discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"), ns)
	if err != nil {
		panic(err)
	}
	for _, s := range l.(*discoveryv1.EndpointSliceList).Items {
		if adopted(&s, holder) {
			if err := tl.client.Tracker().Delete(gvr, ns, s.Name); err != nil {
				panic(err)
			}
		}
	}
}

// logHas checks that a run's log has each of the lines want.
func logHas(t *testing.T, log string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(log, w) {
			t.Errorf("log lacks %q:\n%s", w, log)
		}
	}
}

// add puts objects into tl's cluster.
func (tl *timeline) add(t *testing.T, objects ...runtime.Object) {
	t.Helper()
	for _, o := range objects {
		if err := tl.client.Tracker().Add(o); err != nil {
			t.Fatal(err)
		}
	}
}

// runner is a Runner on tl's clock with the given period.
func (tl *timeline) runner(period time.Duration, log *bytes.Buffer) *Runner {
	r := New(tl.client, Options{Log: log, Now: func() time.Time { return tl.now }, KubeProxySyncPeriod: period})
	r.sleep = func(_ context.Context, d time.Duration) error {
		tl.events = append(tl.events, event{start: tl.now, at: tl.now, kind: "sleep", d: d})
		tl.now = tl.now.Add(d)
		return nil
	}
	// the fake clock sees only the run's own changes
	r.follow = func(context.Context) func() { return func() {} }
	return r
}

// newState is a renumber of 10.96.0.0/16 to 10.200.0.0/16 that has recorded nothing yet.
func newState() *State {
	return &State{From: []string{"10.96.0.0/16"}, To: []string{"10.200.0.0/16"}, Phase: PhaseMoving, ClusterDomain: defaultDomain}
}

// record records the Services of tl's cluster in st, as moveAll does, and returns the cluster it read.
func (tl *timeline) record(t *testing.T, st *State) *cluster {
	t.Helper()
	c, err := readCluster(context.Background(), tl.client)
	if err != nil {
		t.Fatal(err)
	}
	if _, st.Services, err = buildPlan(c, st, false); err != nil {
		t.Fatal(err)
	}
	return c
}

// proxySyncs are the times kube-proxy's sync runner starts a sync on the
// given changes (sorted) with the given period, taking no time: at once on
// a change a period or more after the last sync, else a period after it.
func proxySyncs(changes []time.Time, period time.Duration) []time.Time {
	var syncs []time.Time
	var last time.Time
	pending := false
	for _, c := range changes {
		if pending && !c.Before(last.Add(period)) {
			last, pending = last.Add(period), false
			syncs = append(syncs, last)
		}
		switch {
		case pending:
		case last.IsZero() || !c.Before(last.Add(period)):
			last = c
			syncs = append(syncs, c)
		default:
			pending = true
		}
	}
	if pending {
		syncs = append(syncs, last.Add(period))
	}
	return syncs
}

// checkWindows checks, from tl's events, that for every moved Service the
// request freeing its old address (free) and the one taking it again (take)
// land in one kube-proxy sync with room on both sides, inside a window that a
// primer opened after a pause long enough for kube-proxy to be idle, that
// each free started within the budget, and that a window closed only once
// its budget had passed (unless the next was for an ownWindow Service), with
// a period of windowPeriod. It returns how many windows it saw.
func checkWindows(t *testing.T, events []event, free, take string, keys []string) int {
	t.Helper()
	period := windowPeriod
	budget := period * 3 / 5
	var changes []time.Time
	var primers []event
	var lastPause time.Time
	var pauses []time.Time
	lastChange := events[0].at // a run begins with no change of its own
	for _, e := range events {
		if e.kind == "sleep" {
			lastPause = e.at
			continue
		}
		if !e.visible() {
			continue
		}
		if e.at.Sub(lastChange) >= 2*period+followUp {
			primers = append(primers, e)
			pauses = append(pauses, lastPause)
		}
		lastChange = e.at
		changes = append(changes, e.at)
		if e.kind == "restore" {
			changes = append(changes, e.at.Add(followUp))
		}
	}
	sortTimes(changes)
	syncs := proxySyncs(changes, period)
	for _, key := range keys {
		f, tk := find(events, free, key), find(events, take, key)
		if f == nil || tk == nil {
			t.Errorf("Service %s: %s found %t, %s found %t; want both", key, free, f != nil, take, tk != nil)
			continue
		}
		for _, s := range syncs {
			if s.After(f.at.Add(-100*time.Millisecond)) && s.Before(tk.at.Add(300*time.Millisecond)) {
				t.Errorf("Service %s: a kube-proxy sync at %s, within 100 ms before its %s at %s or 300 ms after its %s at %s", key, clock(s), free, clock(f.at), take, clock(tk.at))
			}
		}
		p := lastBefore(primers, f.at)
		if p == nil {
			t.Errorf("Service %s: its %s at %s follows no primer", key, free, clock(f.at))
			continue
		}
		first := find(events, "flip", key) // in a rollback the flip comes first
		if first == nil {
			first = f
		}
		if first.start.Sub(p.start) > budget && p.key != key {
			t.Errorf("Service %s: its %s started at %s, %s after the primer at %s (Service %s), past the budget %s", key, first.kind, clock(first.start), first.start.Sub(p.start), clock(p.start), p.key, budget)
		}
	}
	for i := 1; i < len(primers); i++ {
		if !ownWindow[primers[i].key] && pauses[i].Sub(primers[i-1].start) < budget {
			t.Errorf("window %d (Service %s) paused at %s, %s after the primer of window %d: closed before its budget %s",
				i+1, primers[i].key, clock(pauses[i]), pauses[i].Sub(primers[i-1].start), i, budget)
		}
	}
	return len(primers)
}

// dnsEntry is what cluster DNS holds for a Service: its addresses, or the
// namespace/name of the Service its CNAME points at.
type dnsEntry struct {
	ips   []string
	cname string
}

// names is what cluster DNS holds for each Service of tl's cluster now.
func (tl *timeline) names(t *testing.T) map[string]dnsEntry {
	t.Helper()
	l, err := tl.client.Tracker().List(corev1.SchemeGroupVersion.WithResource("services"), corev1.SchemeGroupVersion.WithKind("Service"), "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]dnsEntry{}
	for _, svc := range l.(*corev1.ServiceList).Items {
		e := dnsEntry{ips: svc.Spec.ClusterIPs}
		if svc.Spec.Type == corev1.ServiceTypeExternalName {
			labels := strings.SplitN(svc.Spec.ExternalName, ".", 3)
			e = dnsEntry{cname: labels[1] + "/" + labels[0]}
		}
		out[svc.Namespace+"/"+svc.Name] = e
	}
	return out
}

// checkNames checks, from the events of a run that began with DNS holding
// start, that at every moment each of keys resolves, through its CNAME if
// it has one, to addresses kube-proxy served from its last sync (every
// address of start before the first): no name ever answers nothing or an
// address that reaches nothing.
func checkNames(t *testing.T, start map[string]dnsEntry, events []event, keys []string) {
	t.Helper()
	dns := map[string]dnsEntry{}
	served := map[string]bool{}
	for k, e := range start {
		dns[k] = e
		for _, ip := range e.ips {
			served[ip] = true
		}
	}
	var changes []time.Time
	for _, e := range events {
		if e.visible() {
			changes = append(changes, e.at)
		}
	}
	syncs := proxySyncs(changes, windowPeriod)
	failed := map[string]bool{}
	check := func(at time.Time, after string) {
		for _, key := range keys {
			if failed[key] {
				continue
			}
			e, ok := dns[key]
			why := ""
			switch {
			case !ok:
				why = "does not exist"
			case e.cname != "":
				target, ok := dns[e.cname]
				if !ok || target.cname != "" {
					why = "is a CNAME to " + e.cname + ", which has no address"
				}
				e = target
			}
			for _, ip := range e.ips {
				if why == "" && !served[ip] {
					why = "resolves to " + ip + ", which kube-proxy does not serve yet"
				}
			}
			if why != "" {
				failed[key] = true
				t.Errorf("Service %s %s at %s, after %s", key, why, clock(at), after)
			}
		}
	}
	for _, e := range events {
		for len(syncs) > 0 && syncs[0].Before(e.at) {
			served = map[string]bool{}
			for _, d := range dns {
				for _, ip := range d.ips {
					served[ip] = true
				}
			}
			check(syncs[0], "a kube-proxy sync")
			syncs = syncs[1:]
		}
		switch e.kind {
		case "hold", "bridge", "recreate", "restore":
			dns[e.obj] = dnsEntry{ips: e.ips}
		case "flip", "retarget":
			dns[e.obj] = dnsEntry{cname: e.cname}
		case "unhold", "delete":
			delete(dns, e.obj)
		default:
			continue
		}
		check(e.at, e.kind+" of "+e.obj)
	}
}

func sortTimes(ts []time.Time) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Before(ts[j-1]); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// find is the last event of kind for key.
func find(events []event, kind, key string) *event {
	var out *event
	for i := range events {
		if events[i].kind == kind && events[i].key == key {
			out = &events[i]
		}
	}
	return out
}

// ownWindow are the Services whose addresses every pod uses, each moved in a window of its own.
var ownWindow = map[string]bool{"kube-system/kube-dns": true, "default/kubernetes": true}

// lastBefore is the last primer at or before at.
func lastBefore(primers []event, at time.Time) *event {
	var out *event
	for i := range primers {
		if !primers[i].at.After(at) {
			out = &primers[i]
		}
	}
	return out
}

func clock(t time.Time) string { return t.Format("15:04:05.000") }

// windowLines sums the Services the log's "window N: K Services" lines count.
func windowLines(log string) (windows, services int) {
	for _, m := range regexp.MustCompile(`(?m)^window \d+: (\d+) Services$`).FindAllStringSubmatch(log, -1) {
		n, _ := strconv.Atoi(m[1])
		windows, services = windows+1, services+n
	}
	return windows, services
}

// TestWindows moves 13 Services (one with 25 EndpointSlices, one whose copy
// is written so slowly that its window has no room left after it, and the
// DNS Service) and rolls them back with the default period, and checks every
// Service's two requests fall in one window after a primer and a pause, the
// windows close on the budget, and each window is reported.
func TestWindows(t *testing.T) {
	ctx := context.Background()
	tl := newTimeline(12)
	tl.slow = map[string]time.Duration{"copy apps/s02": 300 * time.Millisecond}
	var log bytes.Buffer
	r := tl.runner(0, &log)
	st := newState()
	start := tl.names(t)
	if err := r.moveAll(ctx, st); err != nil {
		t.Fatalf("moveAll: %v\n%s", err, log.String())
	}
	var keys []string
	for _, rec := range st.Services {
		keys = append(keys, rec.key())
	}
	if len(keys) != 13 {
		t.Fatalf("recorded %v, want 13 Services", keys)
	}
	n := checkWindows(t, tl.events, "flip", "bridge", keys)
	checkWindows(t, tl.events, "unhold", "restore", keys)
	checkNames(t, start, tl.events, keys)
	if windows, services := windowLines(log.String()); windows != n || services != len(keys) || n < 4 {
		t.Errorf("log reports %d windows of %d Services; want the %d windows seen (4 or more) and %d Services\n%s", windows, services, n, len(keys), log.String())
	}
	if !strings.Contains(log.String(), "EndpointSlice apps/s02-renumber-bridge-00000 deleted, to be written again") {
		t.Errorf("the copy of s02, which took the rest of its window, was not written again in the next\n%s", log.String())
	}

	tl.events = nil
	log.Reset()
	start = tl.names(t)
	if _, err := tl.runner(0, &log).Rollback(ctx); err != nil {
		t.Fatalf("rollback: %v\n%s", err, log.String())
	}
	n = checkWindows(t, tl.events, "delete", "restore", keys)
	checkWindows(t, tl.events, "flip", "hold", keys)
	checkNames(t, start, tl.events, keys)
	if windows, services := windowLines(log.String()); windows != n || services != len(keys) {
		t.Errorf("rollback log reports %d windows of %d Services; want %d and %d\n%s", windows, services, n, len(keys), log.String())
	}
}

// TestWindowsOff checks a negative period moves Services with no pause and no window.
func TestWindowsOff(t *testing.T) {
	tl := newTimeline(6)
	var log bytes.Buffer
	st := newState()
	if err := tl.runner(-1, &log).moveAll(context.Background(), st); err != nil {
		t.Fatalf("moveAll: %v\n%s", err, log.String())
	}
	for _, e := range tl.events {
		if e.kind == "sleep" {
			t.Errorf("paused %s with windows turned off", e.d)
		}
	}
	if strings.Contains(log.String(), "window") || find(tl.events, "bridge", "apps/s04") == nil {
		t.Errorf("log with windows turned off:\n%s\nwant every Service bridged and no window", log.String())
	}
}

// TestWindowUnprimed checks a Service whose copies a killed run wrote gets a
// window of its own, said to be unprimed, and the next Service a new one.
func TestWindowUnprimed(t *testing.T) {
	ctx := context.Background()
	tl := newTimeline(2)
	var log bytes.Buffer
	r := tl.runner(time.Second, &log)
	st := newState()
	tl.record(t, st)
	if err := r.writeAhead(ctx, &st.Services[0]); err != nil {
		t.Fatal(err)
	}
	for i := range st.Services[:2] {
		if err := r.moveService(ctx, st, &st.Services[i]); err != nil {
			t.Fatal(err)
		}
	}
	r.closeWindow()
	want := []string{
		"window 1: Service apps/s00 changed nothing",
		"window 1: 1 Services",
		"window 2: Service apps/s01 primes kube-proxy",
		"window 2: 1 Services",
	}
	for _, w := range want {
		if !strings.Contains(log.String(), w) {
			t.Errorf("log lacks %q:\n%s", w, log.String())
		}
	}
}

// TestKubernetesWindow checks the `kubernetes` Service, deleted and replaced
// by its bridge after another Service moved, gets a window of its own.
func TestKubernetesWindow(t *testing.T) {
	ctx := context.Background()
	tl := newTimeline(1)
	tl.add(t, pacedService("default", "kubernetes", "10.96.0.1", nil), pacedSlice("default", "kubernetes", 0))
	var log bytes.Buffer
	r := tl.runner(windowPeriod, &log)
	st := newState()
	c := tl.record(t, st)
	if err := r.moveService(ctx, st, &st.Services[0]); err != nil {
		t.Fatal(err)
	}
	to, _ := ParseRanges("10.200.0.0/16")
	live := c.service("default", "kubernetes")
	if err := r.replaceKubernetes(ctx, kubernetesRecord(live, to), live, to); err != nil {
		t.Fatalf("replaceKubernetes: %v\n%s", err, log.String())
	}
	checkWindows(t, tl.events, "delete", "bridge", []string{"default/kubernetes"})
	logHas(t, log.String(), "window 1: 1 Services", "window 2: Service default/kubernetes primes kube-proxy", "window 2: 1 Services")
	// its own window waits out all of its budget but ownMargin after the primer
	var settled time.Duration
	for _, e := range tl.events {
		switch {
		case e.kind == "sleep":
			settled = e.d
		case e.kind == "delete" && e.key == "default/kubernetes":
			if want := windowPeriod*3/5 - ownMargin; settled != want {
				t.Errorf("the kubernetes Service's window waited %s after its primer; want %s", settled, want)
			}
		}
	}
}

// TestDNSWindowAlone checks the DNS Service's window, which waits longer
// after its primer, takes no other Service after it, even with requests
// quick enough for another to fit in its budget.
func TestDNSWindowAlone(t *testing.T) {
	tl := newTimeline(1)
	tl.latency = 5 * time.Millisecond
	tl.add(t, pacedService("zz", "after", "10.96.0.99", nil), pacedSlice("zz", "after", 0))
	var log bytes.Buffer
	st := newState()
	if err := tl.runner(windowPeriod, &log).moveAll(context.Background(), st); err != nil {
		t.Fatalf("moveAll: %v\n%s", err, log.String())
	}
	logHas(t, log.String(), "window 2: Service kube-system/kube-dns primes kube-proxy", "window 2: 1 Services", "window 3: Service zz/after primes kube-proxy")
}

// TestDualStackPrimer checks the primer of a dual-stack Service's window
// holds a copy of each address type, written after the pause: a dual-stack
// kube-proxy syncs each family's proxier on that family's slices only.
func TestDualStackPrimer(t *testing.T) {
	tl := newTimeline(0)
	dual := pacedService("apps", "dual", "10.96.0.30", nil)
	dual.Spec.ClusterIPs = []string{"10.96.0.30", "fd00::30"}
	v6 := pacedSlice("apps", "dual", 2)
	v6.AddressType, v6.Endpoints[0].Addresses = discoveryv1.AddressTypeIPv6, []string{"fd00::1"}
	tl.add(t, dual, pacedSlice("apps", "dual", 0), pacedSlice("apps", "dual", 1), v6)
	var log bytes.Buffer
	st := &State{From: []string{"10.96.0.0/16", "fd00::/108"}, To: []string{"10.200.0.0/16", "fd00:200::/108"}, Phase: PhaseMoving, ClusterDomain: defaultDomain}
	if err := tl.runner(windowPeriod, &log).moveAll(context.Background(), st); err != nil {
		t.Fatalf("moveAll: %v\n%s", err, log.String())
	}
	var primed []string
	for _, e := range tl.events {
		switch {
		case e.kind == "sleep" && e.d > time.Second:
			primed = nil // the pause: what follows primes
		case e.kind == "copy" && e.key == "apps/dual":
			primed = append(primed, string(e.family))
		case e.kind == "flip" && e.key == "apps/dual":
			if got := strings.Join(primed, ","); got != "IPv4,IPv6" {
				t.Errorf("copies written between the pause and the flip: %q; want one of each address type, IPv4,IPv6", got)
			}
		}
	}
}

// TestKubernetesBackWindow checks a rollback puts the `kubernetes` Service,
// moved to the target, back at its old address itself, once the apiservers
// serve the old range: its delete at the target primes a window, and the
// bridge's delete and the Service's create at the old address land in one
// kube-proxy sync, with the labels the apiservers gave it.
func TestKubernetesBackWindow(t *testing.T) {
	ctx := context.Background()
	tl, st, labels := kubernetesMoved(t)
	var log bytes.Buffer
	r := tl.runner(windowPeriod, &log)
	left, err := r.unmoveKubernetes(ctx, st)
	if err != nil || len(left) > 0 {
		t.Fatalf("unmoveKubernetes: %v, left %q\n%s", err, left, log.String())
	}
	checkWindows(t, tl.events, "delete", "recreate", []string{"default/kubernetes"})
	// checkWindows takes the last delete, the bridge's: both deletes follow the pause.
	var order []string
	for _, e := range tl.events {
		if e.kind == "sleep" || e.visible() {
			order = append(order, e.kind)
		}
	}
	if want := "sleep delete sleep delete recreate"; strings.Join(order, " ") != want {
		t.Errorf("pauses and changes %q; want %q (pause, the Service's delete, settle, the bridge's delete, the create)", strings.Join(order, " "), want)
	}
	back, err := tl.client.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Spec.ClusterIP != "10.96.0.1" || back.Labels["component"] != "apiserver" || back.Labels["provider"] != "kubernetes" {
		t.Errorf("kubernetes back at %s with labels %v; want 10.96.0.1 with %v", back.Spec.ClusterIP, back.Labels, labels)
	}
	if _, err := tl.client.CoreV1().Services("default").Get(ctx, KubernetesBridgeName, metav1.GetOptions{}); err == nil {
		t.Errorf("the bridge %s is left", KubernetesBridgeName)
	}
	logHas(t, log.String(), "window 1: Service default/kubernetes primes kube-proxy", "Service default/kubernetes created again at 10.96.0.1", "window 1: 1 Services")
}

// kubernetesMoved is a cluster whose `kubernetes` Service a renumber moved to
// 10.200.0.1, its bridge at 10.96.0.1, with its apiserver serving the old
// range again, the renumber's record, and the labels the apiservers gave it.
func kubernetesMoved(t *testing.T) (*timeline, *State, map[string]string) {
	t.Helper()
	tl := newTimeline(0)
	labels := map[string]string{"component": "apiserver", "provider": "kubernetes"}
	moved := pacedService("default", "kubernetes", "10.200.0.1", labels)
	moved.Spec.Selector = nil
	old := moved.DeepCopy()
	old.Spec.ClusterIP, old.Spec.ClusterIPs = "10.96.0.1", []string{"10.96.0.1"}
	to, _ := ParseRanges("10.200.0.0/16")
	rec := kubernetesRecord(old, to)
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "apiserver-a",
			Labels:      map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver"},
			Annotations: map[string]string{apiserverranges.Annotation: "10.96.0.0/16"}},
		Spec: coordinationv1.LeaseSpec{RenewTime: &metav1.MicroTime{Time: tl.now}, LeaseDurationSeconds: ptr.To[int32](3600)},
	}
	tl.add(t, moved, newBridge(rec), pacedSlice("default", "kubernetes", 0), lease)
	st := newState()
	st.Kubernetes = rec
	return tl, st, labels
}

// TestKubernetesBackRacesApiserver checks a rollback whose create of the
// `kubernetes` Service at its old address finds the address held by an
// apiserver recreating it leaves it to that apiserver and ends once the
// Service is back.
func TestKubernetesBackRacesApiserver(t *testing.T) {
	ctx := context.Background()
	tl, st, labels := kubernetesMoved(t)
	tl.client.PrependReactor("create", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		svc := a.(k8stesting.CreateAction).GetObject().(*corev1.Service)
		if svc.Name != "kubernetes" {
			return false, nil, nil
		}
		// the apiserver's create wins the address; ours is refused
		back := pacedService("default", "kubernetes", "10.96.0.1", labels)
		back.Spec.Selector = nil
		if err := tl.client.Tracker().Add(back); err != nil {
			t.Error(err)
		}
		return true, nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), "kubernetes",
			field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"), svc.Spec.ClusterIPs, "failed to allocate IP 10.96.0.1: provided IP is already allocated")})
	})
	var log bytes.Buffer
	if left, err := tl.runner(windowPeriod, &log).unmoveKubernetes(ctx, st); err != nil || len(left) > 0 {
		t.Fatalf("unmoveKubernetes: %v, left %q\n%s", err, left, log.String())
	}
	logHas(t, log.String(), "Service default/kubernetes: an apiserver holds 10.96.0.1, recreating it")
}

// TestKubernetesBackLeavesNoCopies checks a rollback after a renumber killed
// between writing the `kubernetes` bridge's copies and creating the bridge,
// with the apiservers since rolled back and the Service recreated at its old
// address, deletes the copies no bridge will adopt.
func TestKubernetesBackLeavesNoCopies(t *testing.T) {
	ctx := context.Background()
	tl := newTimeline(0)
	svc := pacedService("default", "kubernetes", "10.96.0.1", nil)
	svc.Spec.Selector = nil
	to, _ := ParseRanges("10.200.0.0/16")
	rec := kubernetesRecord(svc, to)
	var log bytes.Buffer
	r := tl.runner(windowPeriod, &log)
	tl.add(t, svc, pacedSlice("default", "kubernetes", 0))
	if err := r.writeAhead(ctx, rec); err != nil {
		t.Fatal(err)
	}
	st := newState()
	st.Kubernetes = rec
	if left, err := r.unmoveKubernetes(ctx, st); err != nil || len(left) > 0 {
		t.Fatalf("unmoveKubernetes: %v, left %q\n%s", err, left, log.String())
	}
	l, err := tl.client.DiscoveryV1().EndpointSlices("default").List(ctx, metav1.ListOptions{LabelSelector: servicebridge.Selector(rec.Bridge).String()})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) > 0 {
		t.Errorf("%d EndpointSlices of bridge %s left after the rollback, first %s", len(l.Items), rec.Bridge, l.Items[0].Name)
	}
}
