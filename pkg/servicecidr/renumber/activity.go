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
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// activity keeps when a Service or an EndpointSlice of the cluster last
// changed, by anyone: kube-proxy syncs on every such change, so a window
// waits until kube-proxy is idle after all of them, not only after the
// tool's own. A change by another (kube-controller-manager, an apiserver's
// endpoint reconciler, a user) just before a primer leaves kube-proxy's next
// sync pending, and the primer then starts none.
type activity struct {
	now func() time.Time

	mu sync.Mutex
	// last is when the latest change reached the tool, what names it.
	last time.Time
	what string
}

// note records a change, named by what, as seen now.
func (a *activity) note(what string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.last, a.what = a.now(), what
}

// latest is when the latest change was seen and what it was; zero when none.
func (a *activity) latest() (time.Time, string) {
	if a == nil {
		return time.Time{}, ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last, a.what
}

// followActivity watches the cluster's Services and EndpointSlices into
// r.act until the returned stop is called.
func (r *Runner) followActivity(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	r.act = &activity{now: r.opts.Now}
	var wg sync.WaitGroup
	follow := func(kind string, list func(context.Context) (string, error), watchFrom func(context.Context, string) (watch.Interface, error)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.act.follow(ctx, kind, list, watchFrom)
		}()
	}
	follow("Service",
		func(ctx context.Context) (string, error) {
			l, err := r.client.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{Limit: 1})
			if err != nil {
				return "", err
			}
			return l.ResourceVersion, nil
		},
		func(ctx context.Context, rv string) (watch.Interface, error) {
			return r.client.CoreV1().Services(metav1.NamespaceAll).Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
		})
	follow("EndpointSlice",
		func(ctx context.Context) (string, error) {
			l, err := r.client.DiscoveryV1().EndpointSlices(metav1.NamespaceAll).List(ctx, metav1.ListOptions{Limit: 1})
			if err != nil {
				return "", err
			}
			return l.ResourceVersion, nil
		},
		func(ctx context.Context, rv string) (watch.Interface, error) {
			return r.client.DiscoveryV1().EndpointSlices(metav1.NamespaceAll).Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
		})
	return func() {
		cancel()
		wg.Wait()
	}
}

// follow notes every change of kind from now until ctx ends, watching again
// from a fresh list whenever a watch ends; the changes missed in between are
// noted as one.
func (a *activity) follow(ctx context.Context, kind string, list func(context.Context) (string, error), watchFrom func(context.Context, string) (watch.Interface, error)) {
	for ctx.Err() == nil {
		rv, err := list(ctx)
		var w watch.Interface
		if err == nil {
			w, err = watchFrom(ctx, rv)
		}
		if err != nil {
			a.note(kind + "s (not followed: " + err.Error() + ")")
			if sleep(ctx, time.Second) != nil {
				return
			}
			continue
		}
		a.watch(ctx, kind, w)
		a.note(kind + "s (followed again)")
	}
}

// watch notes the changes w delivers until it or ctx ends.
func (a *activity) watch(ctx context.Context, kind string, w watch.Interface) {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok || ev.Type == watch.Error {
				return
			}
			if m, err := meta.Accessor(ev.Object); err == nil && ev.Type != watch.Bookmark {
				a.note(kind + " " + m.GetNamespace() + "/" + m.GetName())
			}
		}
	}
}
