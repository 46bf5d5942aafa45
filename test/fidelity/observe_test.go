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

package fidelity

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// watcher keeps the events of one watch started before the scenario.
type watcher struct {
	resource string
	w        watch.Interface
	done     chan struct{}

	mu     sync.Mutex
	events []watch.Event
}

// startWatches watches Services and IPAddresses from the revision the cluster is at now.
func (r *run) startWatches(ctx context.Context) []*watcher {
	rv := strconv.FormatInt(r.revision(ctx), 10)
	opts := metav1.ListOptions{ResourceVersion: rv}
	services, err := r.admin.CoreV1().Services("").Watch(ctx, opts)
	if err != nil {
		r.t.Fatalf("watching Services: %v", err)
	}
	addresses, err := r.admin.NetworkingV1().IPAddresses().Watch(ctx, opts)
	if err != nil {
		services.Stop()
		r.t.Fatalf("watching IPAddresses: %v", err)
	}
	watchers := []*watcher{
		{resource: "services", w: services, done: make(chan struct{})},
		{resource: "ipaddresses", w: addresses, done: make(chan struct{})},
	}
	for _, w := range watchers {
		go w.collect()
		r.t.Cleanup(w.w.Stop)
	}
	return watchers
}

func (w *watcher) collect() {
	defer close(w.done)
	for e := range w.w.ResultChan() {
		w.mu.Lock()
		w.events = append(w.events, e)
		w.mu.Unlock()
	}
}

// saw reports whether an event for an object named name (or whose parent is) arrived.
func (w *watcher) saw(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, e := range w.events {
		switch o := e.Object.(type) {
		case *corev1.Service:
			if o.Name == name {
				return true
			}
		case *networkingv1.IPAddress:
			if o.Spec.ParentRef != nil && o.Spec.ParentRef.Name == name {
				return true
			}
		}
	}
	return false
}

// finishWatches creates a sentinel Service after the last step, waits until both watches
// delivered its events (every event of the scenario came before them), stops the watches
// and returns their records.
func (r *run) finishWatches(ctx context.Context, watchers []*watcher) []record {
	const sentinel = "zz-sentinel"
	// kube-system has no quota, and the scenario filled default's.
	sentinelService := service(sentinel, nil)
	sentinelService.Namespace = metav1.NamespaceSystem
	if _, err := r.admin.CoreV1().Services(metav1.NamespaceSystem).Create(ctx, sentinelService, metav1.CreateOptions{}); err != nil {
		r.t.Fatalf("creating the sentinel Service: %v", err)
	}
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return watchers[0].saw(sentinel) && watchers[1].saw(sentinel), nil
	})
	if err != nil {
		r.t.Fatalf("the watches never delivered the sentinel Service and its IPAddress: %v", err)
	}
	var records []record
	for _, w := range watchers {
		w.mu.Lock()
		for _, e := range w.events {
			records = append(records, r.watchRecord(w.resource, e)...)
		}
		w.mu.Unlock()
		// An open watch holds the apiserver's shutdown for up to a minute.
		w.w.Stop()
		<-w.done
	}
	return records
}

// watchRecord attributes an event to the step whose revisions hold its object's.
func (r *run) watchRecord(resource string, e watch.Event) []record {
	obj, ok := e.Object.(metav1.Object)
	if !ok {
		return []record{{key: []string{"watch", "", resource, string(e.Type)}, value: toJSON(e.Object)}}
	}
	rv, err := strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
	if err != nil {
		r.t.Errorf("%s watch event with resourceVersion %q", resource, obj.GetResourceVersion())
	}
	step := r.stepOfRevision(rv)
	if step == "" {
		return nil
	}
	return []record{{key: []string{"watch", step, resource, string(e.Type), obj.GetNamespace() + "/" + obj.GetName()}, value: toJSON(e.Object)}}
}

// admissionRecords are the recorder's requests made during a step; each request's UID is
// new per request and dropped. Within a step the IPAddress requests come in family order
// (familyOrder).
func (r *run) admissionRecords(rec *recorder) []record {
	var records []record
	for _, c := range rec.take() {
		step := r.stepAt(c.at)
		if step == "" {
			continue
		}
		req := c.request.DeepCopy()
		req.UID = ""
		records = append(records, record{
			key:   []string{"admission", step, c.phase, string(req.Operation), req.Resource.Resource, req.Namespace + "/" + req.Name},
			value: toJSON(req),
		})
	}
	familyOrder(records)
	return records
}

// familyOrder puts the admission records of IPAddresses of each step in the order of
// their family, IPv4 first, each family's in the order they came, and leaves every other
// record where it is. Upstream's Service storage allocates a dual-stack Service's families
// in the order of a Go map walk (alloc.go, allocIPs), so it asks admission about the IPv6
// address first in about one create in eight; addresses are numbered in order of first
// appearance, and admission is where an address that never reaches etcd first appears.
func familyOrder(records []record) {
	for start := 0; start < len(records); {
		end := start
		for end < len(records) && records[end].key[1] == records[start].key[1] {
			end++
		}
		var slots []int
		var addresses []record
		for i := start; i < end; i++ {
			if addressOf(records[i]).IsValid() {
				slots = append(slots, i)
				addresses = append(addresses, records[i])
			}
		}
		slices.SortStableFunc(addresses, func(a, b record) int {
			return cmp.Compare(addressOf(a).BitLen(), addressOf(b).BitLen())
		})
		for i, slot := range slots {
			records[slot] = addresses[i]
		}
		start = end
	}
}

// addressOf is the address an admission record of an IPAddress is about, or the zero Addr.
func addressOf(r record) netip.Addr {
	if len(r.key) < 6 || r.key[4] != "ipaddresses" {
		return netip.Addr{}
	}
	ip, err := netip.ParseAddr(strings.TrimPrefix(r.key[5], "/"))
	if err != nil {
		return netip.Addr{}
	}
	return ip
}

// audited is the audit log's event of stage for verb of the object resource
// namespace/name, nil while there is none.
func (r *run) audited(stage auditv1.Stage, verb, resource, namespace, name string) *auditv1.Event {
	data, err := os.ReadFile(r.auditLog)
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		var e auditv1.Event
		if json.Unmarshal([]byte(line), &e) != nil || e.ObjectRef == nil {
			continue
		}
		if e.Stage == stage && e.Verb == verb && e.ObjectRef.Resource == resource && e.ObjectRef.Namespace == namespace && e.ObjectRef.Name == name {
			return &e
		}
	}
	return nil
}

// auditRecords are the audit events of the writes made during a step; the audit ID is new
// per request and dropped.
func (r *run) auditRecords(path string) []record {
	f, err := os.Open(path)
	if err != nil {
		r.t.Fatalf("reading the audit log: %v", err)
	}
	defer f.Close()
	var records []record
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	for scanner.Scan() {
		var e auditv1.Event
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			r.t.Fatalf("audit log line %q: %v", scanner.Text(), err)
		}
		step := r.stepAt(e.StageTimestamp.Time)
		if step == "" || e.ObjectRef == nil {
			continue
		}
		e.AuditID = ""
		// The apiserver adds its latency breakdown only to a request slower than its
		// threshold: what a loaded machine shows, not what an apiserver does.
		for k := range e.Annotations {
			if strings.HasPrefix(k, "apiserver.latency.k8s.io/") {
				delete(e.Annotations, k)
			}
		}
		user := e.User.Username
		if e.ImpersonatedUser != nil {
			user = e.ImpersonatedUser.Username
		}
		records = append(records, record{
			key:   []string{"audit", step, e.Verb, e.ObjectRef.Resource, e.ObjectRef.Namespace + "/" + e.ObjectRef.Name, user},
			value: toJSON(e),
		})
	}
	if err := scanner.Err(); err != nil {
		r.t.Fatalf("reading the audit log: %v", err)
	}
	return records
}
