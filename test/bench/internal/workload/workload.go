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

package workload

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/test/bench/internal/ranges"
	"github.com/netfork/netfork/test/bench/internal/stats"
)

// Namespace holds every Service the benchmark creates, so checks can tell them from the
// kubernetes Service.
const Namespace = "bench"

// Phase is what one create or delete phase measured.
type Phase struct {
	// Latencies are the client-side durations of the calls that succeeded.
	Latencies []time.Duration
	// Ends are the times, since the phase started, at which each call ended, failed
	// ones included, in no particular order: what Curve reads.
	Ends []time.Duration
	// elapsed runs from the first call's start to the last call's end.
	elapsed time.Duration
	// Failures counts calls that returned an error; FirstFailure is the first of them.
	Failures     int
	FirstFailure error
}

// PerSecond is the phase's throughput over all n calls, the failed ones included.
func (p Phase) PerSecond(n int) float64 {
	if p.elapsed <= 0 {
		return 0
	}
	return float64(n) / p.elapsed.Seconds()
}

// curveParts is how many shares of its calls a phase's rate curve has: one per 10%.
const curveParts = 10

// Curve is the phase's rate in each tenth of its calls, per second (stats.RateCurve).
func (p Phase) Curve() []float64 {
	return stats.RateCurve(p.Ends, curveParts)
}

// runPhase calls op for 0..n-1 from workers goroutines, passing the worker's number, and
// times each call, so one slow call delays only its own worker; it stops handing out
// work when ctx ends. A positive pace hands out at most pace calls per second across the
// workers; a call's latency is timed from when a worker takes it.
func runPhase(ctx context.Context, n, workers int, pace float64, op func(ctx context.Context, worker, i int) error) Phase {
	var limiter *rate.Limiter
	if pace > 0 {
		limiter = rate.NewLimiter(rate.Limit(pace), 1)
	}
	indexes := make(chan int)
	results := make([]Phase, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			r := &results[w]
			for i := range indexes {
				callStart := time.Now()
				err := op(ctx, w, i)
				r.Ends = append(r.Ends, time.Since(start))
				if err != nil {
					r.Failures++
					if r.FirstFailure == nil {
						r.FirstFailure = fmt.Errorf("call %d: %w", i, err)
					}
					continue
				}
				r.Latencies = append(r.Latencies, time.Since(callStart))
			}
		})
	}
feed:
	for i := range n {
		if limiter != nil && limiter.Wait(ctx) != nil {
			break feed
		}
		select {
		case indexes <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(indexes)
	wg.Wait()
	total := Phase{elapsed: time.Since(start)}
	for _, r := range results {
		total.Latencies = append(total.Latencies, r.Latencies...)
		total.Ends = append(total.Ends, r.Ends...)
		total.Failures += r.Failures
		if total.FirstFailure == nil {
			total.FirstFailure = r.FirstFailure
		}
	}
	if ctx.Err() != nil && total.FirstFailure == nil {
		total.FirstFailure = ctx.Err()
	}
	return total
}

// serviceName names the i-th Service; the padding keeps listings in creation order.
func serviceName(i int) string {
	return fmt.Sprintf("svc-%06d", i)
}

// Shape says what kind of Services a run creates.
type Shape struct {
	// Headless Services (the floor) have no ClusterIP and no NodePort.
	Headless bool
	// DualStack makes every third Service PreferDualStack, for a dual-stack cluster: a
	// ClusterIP of each family, so two IPAddresses, for those.
	DualStack bool
}

// isNodePort says whether the i-th Service is a NodePort Service: every other one until
// ranges.MaxNodePorts are, so that up to 2*MaxNodePorts Services half are NodePorts and
// beyond that the rest are ClusterIP Services.
func isNodePort(i int, headless bool) bool {
	return !headless && i%2 == 1 && i/2 < ranges.MaxNodePorts
}

// benchService is the i-th Service: one TCP port, ClusterIP or NodePort (isNodePort), or
// headless for the floor; it asks for no particular address, so the allocator chooses.
func benchService(i int, shape Shape) *corev1.Service {
	headless := shape.Headless
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: serviceName(i), Namespace: Namespace},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: map[string]string{"app": "bench"},
			Ports: []corev1.ServicePort{{
				Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromInt32(8080),
			}},
		},
	}
	if headless {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
	}
	if isNodePort(i, headless) {
		svc.Spec.Type = corev1.ServiceTypeNodePort
	}
	if shape.DualStack && !headless && i%3 == 2 {
		policy := corev1.IPFamilyPolicyPreferDualStack
		svc.Spec.IPFamilyPolicy = &policy
	}
	return svc
}

// CreateServices creates n Services, worker w through clients[w mod len(clients)], at
// most pace per second when pace is positive, and measures each call.
func CreateServices(ctx context.Context, clients []kubernetes.Interface, n, workers int, pace float64, shape Shape) Phase {
	return runPhase(ctx, n, workers, pace, func(ctx context.Context, w, i int) error {
		_, err := clients[w%len(clients)].CoreV1().Services(Namespace).Create(ctx, benchService(i, shape), metav1.CreateOptions{})
		return err
	})
}

// DeleteServices deletes the n Services, worker w through clients[w mod len(clients)],
// at most pace per second when pace is positive, and measures each call.
func DeleteServices(ctx context.Context, clients []kubernetes.Interface, n, workers int, pace float64) Phase {
	return runPhase(ctx, n, workers, pace, func(ctx context.Context, w, i int) error {
		return clients[w%len(clients)].CoreV1().Services(Namespace).Delete(ctx, serviceName(i), metav1.DeleteOptions{})
	})
}

// CreateNamespace creates the namespace the Services go in.
func CreateNamespace(ctx context.Context, client kubernetes.Interface) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
	if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", Namespace, err)
	}
	return nil
}
