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

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// endpointStates records, per address of the primary kubernetes EndpointSlice, every
// condition set a watch saw it with, e.g. "ready=false serving=true terminating=true",
// and how each of the watch's connections went.
type endpointStates struct {
	mu   sync.Mutex
	seen map[string][]string
	// watchLog says when each watch connection started and why it ended.
	watchLog []string
}

// logWatch notes one thing that happened to the watch.
func (e *endpointStates) logWatch(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.watchLog = append(e.watchLog, time.Now().Format("15:04:05.000")+" "+fmt.Sprintf(format, args...))
}

// watchHistory is the watch's log, one line per event.
func (e *endpointStates) watchHistory() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.watchLog, "\n")
}

// record notes the conditions of every endpoint in slice.
func (e *endpointStates) record(slice *discoveryv1.EndpointSlice) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ep := range slice.Endpoints {
		state := fmt.Sprintf("ready=%t serving=%t terminating=%t", isTrue(ep.Conditions.Ready), isTrue(ep.Conditions.Serving), isTrue(ep.Conditions.Terminating))
		for _, a := range ep.Addresses {
			a = canonical(a)
			if !slices.Contains(e.seen[a], state) {
				e.seen[a] = append(e.seen[a], state)
			}
		}
	}
}

// states returns what the watch saw for addr.
func (e *endpointStates) states(addr string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.seen[addr])
}

// isTrue reads an optional condition, nil meaning false.
func isTrue(b *bool) bool { return b != nil && *b }

var _ = ginkgo.Describe("A stopping apiserver [KEP-1669]", ginkgo.Label("KEP-1669", "disruptive"), func() {
	ginkgo.It("leaves the kubernetes EndpointSlice when stopped, serving and terminating first where the cluster hands off, and returns when started", func(ctx context.Context) {
		requireHook()
		n := apiserverCount(ctx)
		if n < 2 {
			ginkgo.Skip(fmt.Sprintf("the cluster has %d apiserver: stopping it would leave the suite without one", n))
		}
		cs := quietClient()
		primary := func(ctx context.Context) ([]string, error) {
			s, err := cs.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			var ready []string
			for _, ep := range s.Endpoints {
				if isTrue(ep.Conditions.Ready) {
					for _, a := range ep.Addresses {
						ready = append(ready, canonical(a))
					}
				}
			}
			slices.Sort(ready)
			return ready, nil
		}
		gomega.Eventually(ctx, primary).WithTimeout(kubernetesServiceTimeout).Should(gomega.HaveLen(n), "the kubernetes EndpointSlice never listed %d ready apiservers", n)
		before, err := primary(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		handOff := terminatingHandOff(ctx)

		states := &endpointStates{seen: map[string][]string{}}
		watchPrimarySlice(ctx, cs, states)
		start := stopAPIServer(ctx, n-1)

		var removed string
		gomega.Eventually(ctx, func(ctx context.Context) error {
			now, err := primary(ctx)
			if err != nil {
				return err
			}
			var gone []string
			for _, a := range before {
				if !slices.Contains(now, a) {
					gone = append(gone, a)
				}
			}
			if len(gone) != 1 || len(now) != n-1 {
				return fmt.Errorf("ready endpoints %v, want %v less the stopped apiserver's", now, before)
			}
			removed = gone[0]
			return nil
		}).WithTimeout(kubernetesServiceTimeout).WithPolling(500 * time.Millisecond).Should(gomega.Succeed())
		if handOff {
			gomega.Eventually(func() []string { return states.states(removed) }).WithTimeout(10*time.Second).Should(
				gomega.ContainElement("ready=false serving=true terminating=true"),
				func() string {
					return fmt.Sprintf("apiserver %d (%s) left without first being serving and terminating; the watch:\n%s",
						n-1, removed, states.watchHistory())
				})
		}

		start(ctx)
		gomega.Eventually(ctx, primary).WithTimeout(kubernetesServiceTimeout).Should(gomega.Equal(before),
			"apiserver %d (%s) did not come back into the kubernetes EndpointSlice", n-1, removed)
	})
})

// terminatingHandOff tells whether a stopping apiserver marks itself terminating: netfork
// with DualStackAPIServer (its lease reconciler) does; upstream's reconciler does not.
func terminatingHandOff(ctx context.Context) bool {
	m, err := scrape(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	enabled, known := featureEnabled(m, "DualStackAPIServer")
	ginkgo.GinkgoWriter.Printf("DualStackAPIServer: known %t, enabled %t\n", known, enabled)
	return known && enabled
}

// watchPrimarySlice records every state of the primary kubernetes EndpointSlice until
// the spec ends. It resumes from the last resource version when its connection breaks,
// as it does when the apiserver serving it is the one stopped, so no update is missed;
// states logs each connection and why it ended, and any error the watch reported.
func watchPrimarySlice(ctx context.Context, cs kubernetes.Interface, states *endpointStates) {
	list, err := cs.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx, kubernetesSlices)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	api := cs.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault)
	lw := &cache.ListWatch{WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		opts.LabelSelector = kubernetesSlices.LabelSelector
		w, err := api.Watch(ctx, opts)
		if err != nil {
			states.logWatch("watch from resourceVersion %s failed to start: %v", opts.ResourceVersion, err)
			return nil, err
		}
		states.logWatch("watch from resourceVersion %s started", opts.ResourceVersion)
		return newLoggedWatch(ctx, w, states), nil
	}}
	w, err := watchtools.NewRetryWatcherWithContext(context.WithoutCancel(ctx), list.ResourceVersion, lw)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				states.logWatch("the retrying watch reported %v", apierrors.FromObject(ev.Object))
			}
			if s, ok := ev.Object.(*discoveryv1.EndpointSlice); ok && s.Name == "kubernetes" && ev.Type != watch.Deleted {
				states.record(s)
			}
		}
		states.logWatch("the retrying watch ended")
	}()
}

// loggedWatch passes one watch connection's events on and logs why the connection ended:
// closed by the server, stopped by the client, or its context done; and every error event.
type loggedWatch struct {
	inner    watch.Interface
	out      chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
}

func newLoggedWatch(ctx context.Context, inner watch.Interface, states *endpointStates) *loggedWatch {
	w := &loggedWatch{inner: inner, out: make(chan watch.Event), stop: make(chan struct{})}
	go func() {
		defer close(w.out)
		events := 0
		for ev := range inner.ResultChan() {
			events++
			if ev.Type == watch.Error {
				states.logWatch("error event: %v", apierrors.FromObject(ev.Object))
			}
			select {
			case w.out <- ev:
			case <-w.stop:
				states.logWatch("stopped by the client after %d events", events)
				return
			}
		}
		select {
		case <-w.stop:
			states.logWatch("stopped by the client after %d events", events)
		case <-ctx.Done():
			states.logWatch("ended with its context (%v) after %d events", context.Cause(ctx), events)
		default:
			states.logWatch("closed by the server after %d events", events)
		}
	}()
	return w
}

func (w *loggedWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *loggedWatch) Stop() {
	w.stopOnce.Do(func() { close(w.stop) })
	w.inner.Stop()
}
