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
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

var _ = ginkgo.Describe("Data path: an apiserver stopping gracefully [KEP-1669]", ginkgo.Label("datapath", "KEP-1669", "disruptive"), ginkgo.Serial, func() {
	ginkgo.It("keeps every request of a pod polling the kubernetes Service answered, the apiserver serving and terminating until it leaves", func(ctx context.Context) {
		hook := os.Getenv("NETFORK_E2E_HOOK")
		if hook == "" {
			ginkgo.Skip("NETFORK_E2E_HOOK is unset: stopping an apiserver needs the cluster's hook (make test-e2e-kind passes kind/e2e-hook.sh)")
		}
		count, err := strconv.Atoi(strings.TrimSpace(dpHook(ctx, hook, "count")))
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s count", hook)
		if count < 2 {
			ginkgo.Skip(fmt.Sprintf("the cluster has %d apiserver(s): stopping one needs at least two (kind-up --topology ha)", count))
		}
		nodes := dpSchedulableNodes(ctx)
		svc, err := client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		before := dpAPIServerEndpoints(ctx)
		gomega.Expect(before).To(gomega.HaveLen(count), "the kubernetes EndpointSlices should list every apiserver before the stop")

		ginkgo.By("a pod polling https://kubernetes.default.svc/version through " + svc.Spec.ClusterIP)
		ns := dpNamespace(ctx)
		poll := fmt.Sprintf(`i=0; while true; do i=$((i+1)); out=$(%s 2>&1); echo "$i $out"; sleep 0.1; done`, dpCurlAPIServer(svc.Spec.ClusterIP, 3))
		poller := dpStartPod(ctx, ns, dpPod("poller", nodes[0].Name, poll, corev1.RestartPolicyNever))
		dpWaitPolls(ctx, ns, poller.Name, 5)

		ginkgo.By("watching the kubernetes EndpointSlices")
		seen := dpWatchTerminating(ctx)

		index := count - 1
		ginkgo.By(fmt.Sprintf("stopping apiserver %d gracefully", index))
		ginkgo.DeferCleanup(func(ctx context.Context) {
			// Start it again even when the spec failed half-way; starting a running one is a no-op.
			dpHook(ctx, hook, "start", strconv.Itoa(index))
		})
		dpHook(ctx, hook, "stop", strconv.Itoa(index))
		var gone string
		gomega.Eventually(ctx, func(ctx context.Context) []string {
			now := dpAPIServerEndpoints(ctx)
			var missing []string
			for addr := range before {
				if _, ok := now[addr]; !ok {
					missing = append(missing, addr)
				}
			}
			if len(missing) == 1 {
				gone = missing[0]
			}
			return missing
		}).WithTimeout(time.Minute).Should(gomega.HaveLen(1), "one apiserver's endpoint should leave the kubernetes EndpointSlices")
		gomega.Expect(seen.terminatingServing(gone)).To(gomega.BeTrue(),
			"apiserver %s left the EndpointSlices without first being serving=true, terminating=true", gone)

		ginkgo.By(fmt.Sprintf("starting apiserver %d again", index))
		dpHook(ctx, hook, "start", strconv.Itoa(index))
		gomega.Eventually(ctx, func(ctx context.Context) map[string]dpEndpoint {
			return dpAPIServerEndpoints(ctx)
		}).WithTimeout(2 * time.Minute).Should(gomega.HaveKeyWithValue(gone, dpEndpoint{ready: true, serving: true}))

		// The poller must have gone on well past the restart: a positive signal that it had its chance.
		done := dpWaitPolls(ctx, ns, poller.Name, dpPolls(dpLogs(ctx, ns, poller.Name))+20)
		var failed []string
		for _, line := range strings.Split(strings.TrimSpace(done), "\n") {
			if f := strings.Fields(line); len(f) != 2 || f[1] != "200" {
				failed = append(failed, line)
			}
		}
		gomega.Expect(failed).To(gomega.BeEmpty(), "requests through the kubernetes Service failed while an apiserver stopped (of %d)", dpPolls(done))
	})
})

// dpEndpoint is one apiserver endpoint's conditions.
type dpEndpoint struct {
	ready, serving, terminating bool
}

// dpAPIServerEndpoints returns the kubernetes EndpointSlices' endpoints, by primary address.
func dpAPIServerEndpoints(ctx context.Context) map[string]dpEndpoint {
	slices, err := client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelServiceName + "=kubernetes",
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	out := map[string]dpEndpoint{}
	for _, s := range slices.Items {
		if s.Name != "kubernetes" {
			continue // the primary family's slice keeps upstream's name
		}
		for _, e := range s.Endpoints {
			out[e.Addresses[0]] = dpConditions(e)
		}
	}
	return out
}

// dpConditions reads an endpoint's conditions as the EndpointSlice API defines them: a nil
// ready counts as ready, a nil serving defers to ready, a nil terminating is false.
func dpConditions(e discoveryv1.Endpoint) dpEndpoint {
	c := e.Conditions
	ready := c.Ready == nil || *c.Ready
	serving := ready
	if c.Serving != nil {
		serving = *c.Serving
	}
	return dpEndpoint{ready: ready, serving: serving, terminating: c.Terminating != nil && *c.Terminating}
}

// dpSeen records, per address, whether a watch saw it serving and terminating at once.
type dpSeen struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (s *dpSeen) terminatingServing(addr string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[addr]
}

// dpWatchTerminating watches the kubernetes EndpointSlices until the spec ends.
func dpWatchTerminating(ctx context.Context) *dpSeen {
	s := &dpSeen{seen: map[string]bool{}}
	w, err := client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).Watch(ctx, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelServiceName + "=kubernetes",
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			slice, ok := ev.Object.(*discoveryv1.EndpointSlice)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			for _, e := range slice.Endpoints {
				if c := dpConditions(e); c.serving && c.terminating {
					s.mu.Lock()
					s.seen[e.Addresses[0]] = true
					s.mu.Unlock()
				}
			}
		}
	}()
	return s
}

// dpHook runs the cluster's disruption hook and returns its output.
func dpHook(ctx context.Context, hook string, args ...string) string {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(cctx, hook, args...).CombinedOutput()
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s %s: %s", hook, strings.Join(args, " "), out)
	return string(out)
}

// dpPolls counts the poller's finished requests in its log.
func dpPolls(log string) int {
	return strings.Count(log, "\n")
}

// dpWaitPolls waits until the poller has logged at least n requests and returns its log.
func dpWaitPolls(ctx context.Context, ns, pod string, n int) string {
	var log string
	gomega.Eventually(ctx, func(ctx context.Context) int {
		log = dpLogs(ctx, ns, pod)
		return dpPolls(log)
	}).WithTimeout(5*time.Minute).WithPolling(time.Second).Should(gomega.BeNumerically(">=", n), "poller %s/%s", ns, pod)
	return log
}
