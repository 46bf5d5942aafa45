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

package measure

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/netfork/netfork/test/bench/internal/consistency"
	"github.com/netfork/netfork/test/bench/internal/metrics"
	"github.com/netfork/netfork/test/bench/internal/plan"
	"github.com/netfork/netfork/test/bench/internal/result"
	"github.com/netfork/netfork/test/bench/internal/stats"
	"github.com/netfork/netfork/test/bench/internal/workload"
)

// readinessInterval is how often each apiserver's /readyz is polled during a measurement.
const readinessInterval = time.Second

// clusterRun is one measurement of a cluster in progress.
type clusterRun struct {
	ctx     context.Context
	o       *plan.Options
	client  kubernetes.Interface
	clients []kubernetes.Interface
	// profiled is the client of the apiserver --profile follows.
	profiled kubernetes.Interface
	log      io.Writer
	r        *result.ClusterResult
}

// Cluster measures the apiserver a running cluster's control planes serve: N
// Services created by W workers through the cluster's endpoint, checked, deleted and
// checked again, each phase's components' CPU time read from the nodes around it and its
// checks, the apiservers' restarts and readiness flaps over the whole measurement. It
// leaves the cluster without the bench namespace. Whatever goes wrong is recorded in the
// result, which is then not consistent.
func Cluster(ctx context.Context, o *plan.Options, log io.Writer) (r result.ClusterResult) {
	c := o.Cluster
	r = result.ClusterResult{APIServer: c.APIServer, Topology: c.Topology, N: o.Ns[0], Workers: o.Workers, Round: c.Round, Started: time.Now()}
	defer r.Finish()
	client, clients, err := clusterClients(c.Kubeconfig, o.Workers)
	if err != nil {
		r.Failf("%v", err)
		return r
	}
	m := &clusterRun{ctx: ctx, o: o, client: client, clients: clients, profiled: client, log: log, r: &r}
	if o.Profile && len(c.Endpoints) > 0 {
		if m.profiled, err = apiserverClient(c.Kubeconfig, c.Endpoints[0]); err != nil {
			r.Failf("%v", err)
			return r
		}
	}
	if err := m.freshNamespace(); err != nil {
		r.Failf("preparing: %v", err)
		return r
	}
	defer m.deleteNamespace()
	restarts, err := metrics.APIServerRestarts(ctx, client)
	if err != nil {
		r.Failf("before creating: %v", err)
		return r
	}
	ready := metrics.WatchReadiness(ctx, c.Endpoints, readinessInterval)
	if m.createPhase() {
		m.deletePhase()
	}
	r.Flaps, r.NotReadyPolls = ready.Stop()
	if after, err := metrics.APIServerRestarts(ctx, client); err != nil {
		r.Failf("after deleting: %v", err)
	} else {
		r.Restarts = metrics.RestartsSince(restarts, after)
	}
	return r
}

// clusterClients are a client for the checks and one per worker, each with a connection of
// its own, so that kind's load balancer, which balances connections, spreads the workers
// over the control planes. Rate limits are off and the encoding is protobuf, as for the
// local runs.
func clusterClients(kubeconfig string, workers int) (kubernetes.Interface, []kubernetes.Interface, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("--cluster: %w", err)
	}
	cfg.QPS, cfg.Burst = -1, -1
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("--cluster: %w", err)
	}
	clients := make([]kubernetes.Interface, workers)
	for w := range clients {
		own := restclient.CopyConfig(cfg)
		// A Proxy func makes client-go build this client a transport of its own instead of
		// sharing the cached one; it chooses no proxy, as the kubeconfig's client would not.
		own.Proxy = func(*http.Request) (*url.URL, error) { return nil, nil }
		if clients[w], err = kubernetes.NewForConfig(own); err != nil {
			return nil, nil, fmt.Errorf("--cluster: %w", err)
		}
	}
	return client, clients, nil
}

// apiserverClient is a client of one apiserver, not of the cluster's endpoint: the
// kubeconfig's, sent to endpoint and verifying its serving certificate for the name
// "kubernetes", which every apiserver's certificate holds whatever its address.
func apiserverClient(kubeconfig, endpoint string) (kubernetes.Interface, error) {
	cfg, err := clientcmd.BuildConfigFromFlags(endpoint, kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("--cluster: %w", err)
	}
	cfg.ServerName = "kubernetes"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("--apiserver-endpoints %s: %w", endpoint, err)
	}
	return client, nil
}

// freshNamespace waits for a bench namespace left by an earlier measurement to be gone,
// then creates it.
func (m *clusterRun) freshNamespace() error {
	if err := m.waitNamespaceGone(); err != nil {
		return err
	}
	return workload.CreateNamespace(m.ctx, m.client)
}

// deleteNamespace deletes the bench namespace and waits until it is gone, so the next
// measurement starts on a cluster without it.
func (m *clusterRun) deleteNamespace() {
	err := m.client.CoreV1().Namespaces().Delete(m.ctx, workload.Namespace, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		m.r.Failf("deleting namespace %s: %v", workload.Namespace, err)
		return
	}
	if err := m.waitNamespaceGone(); err != nil {
		m.r.Failf("%v", err)
	}
}

// waitNamespaceGone waits up to --settle-timeout for the bench namespace not to exist.
func (m *clusterRun) waitNamespaceGone() error {
	deadline := time.Now().Add(m.o.Cluster.SettleTimeout)
	for {
		_, err := m.client.CoreV1().Namespaces().Get(m.ctx, workload.Namespace, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err == nil && time.Now().After(deadline):
			return fmt.Errorf("namespace %s still exists after %s", workload.Namespace, m.o.Cluster.SettleTimeout)
		case err != nil && time.Now().After(deadline):
			return fmt.Errorf("reading namespace %s: %w", workload.Namespace, err)
		}
		select {
		case <-m.ctx.Done():
			return m.ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// readCPU reads the nodes' components' CPU time; with no --nodes, an empty reading.
func (m *clusterRun) readCPU() (metrics.NodeCPU, error) {
	return metrics.ReadNodeCPU(m.ctx, metrics.DockerExec, m.o.Cluster.Nodes)
}

// createPhase times the creates and checks what they left, reading the CPU time around
// both; false when the measurement cannot go on.
func (m *clusterRun) createPhase() bool {
	r, n := m.r, m.r.N
	cpuBefore, err := m.readCPU()
	if err != nil {
		r.Failf("before creating: %v", err)
		return false
	}
	profiles := m.profile(plan.PhaseCreate)
	defer profiles.wait()
	phaseCtx, cancel := context.WithTimeout(m.ctx, m.o.PhaseTimeout)
	create := workload.CreateServices(phaseCtx, m.clients, n, m.o.Workers, 0, workload.Shape{DualStack: m.o.Cluster.DualStack})
	cancel()
	profiles.stop()
	r.CreatesPerSec, r.Create, r.CreateFailures = create.PerSecond(n), result.ToMS(stats.Summarize(create.Latencies)), create.Failures
	r.CreateCurve = create.Curve()
	if create.Failures > 0 {
		r.Failf("%d of %d creates failed, first: %v", create.Failures, n, create.FirstFailure)
	}
	problems, _, err := consistency.CheckClusterSettled(m.ctx, m.client, n, m.o.Cluster.SettleTimeout)
	if err != nil {
		r.Failf("after creating: %v", err)
		return false
	}
	for _, problem := range problems {
		r.Failf("after creating: %s", problem)
	}
	cpuAfter, err := m.readCPU()
	if err != nil {
		r.Failf("after creating: %v", err)
		return false
	}
	r.CreateCPU = metrics.CPUSecondsSince(cpuBefore, cpuAfter)
	fmt.Fprintf(m.log, "bench-services: %s round %d: %d creates, %.1f/s, p99 %.0f ms\n", r.APIServer, r.Round, n, r.CreatesPerSec, r.Create.P99)
	return true
}

// deletePhase times the deletes and waits for the cluster to settle (kube-controller-
// manager deletes the EndpointSlices after their Services), reading the CPU time around both.
func (m *clusterRun) deletePhase() {
	r, n := m.r, m.r.N
	cpuBefore, err := m.readCPU()
	if err != nil {
		r.Failf("before deleting: %v", err)
		return
	}
	profiles := m.profile(plan.PhaseDelete)
	defer profiles.wait()
	phaseCtx, cancel := context.WithTimeout(m.ctx, m.o.PhaseTimeout)
	del := workload.DeleteServices(phaseCtx, m.clients, n, m.o.Workers, 0)
	cancel()
	profiles.stop()
	r.DeletesPerSec, r.Delete, r.DeleteFailures = del.PerSecond(n), result.ToMS(stats.Summarize(del.Latencies)), del.Failures
	r.DeleteCurve = del.Curve()
	if del.Failures > 0 {
		r.Failf("%d of %d deletes failed, first: %v", del.Failures, n, del.FirstFailure)
	}
	problems, settled, err := consistency.CheckClusterSettled(m.ctx, m.client, 0, m.o.Cluster.SettleTimeout)
	r.SettleSeconds = settled.Seconds()
	if err != nil {
		r.Failf("after deleting: %v", err)
	}
	for _, problem := range problems {
		r.Failf("after deleting: %s", problem)
	}
	cpuAfter, err := m.readCPU()
	if err != nil {
		r.Failf("after deleting: %v", err)
		return
	}
	r.DeleteCPU = metrics.CPUSecondsSince(cpuBefore, cpuAfter)
	fmt.Fprintf(m.log, "bench-services: %s round %d: %d deletes, %.1f/s, p99 %.0f ms, settled in %.0fs\n", r.APIServer, r.Round, n, r.DeletesPerSec, r.Delete.P99, r.SettleSeconds)
}

// phaseProfiles are the CPU profiles --profile takes through one phase of a measurement.
type phaseProfiles struct {
	stop, wait func()
}

// noProfiles are those of a phase --profile does not follow.
var noProfiles = phaseProfiles{stop: func() {}, wait: func() {}}

// profile starts, when phase is --profile-phase, CPU profiles of the first apiserver back
// to back, each --profile-duration long, into profiles/cpu-<apiserver>-r<round>-<phase>-<k>.pprof,
// so that the first and the last show where its time per Service went as the Services
// accumulated. After stop no profile starts; wait waits for the one in flight. A profile
// that fails ends the series with a warning: it says nothing about the apiserver.
func (m *clusterRun) profile(phase string) phaseProfiles {
	if !m.o.Profile || phase != m.o.ProfilePhase {
		return noProfiles
	}
	dir := m.o.ClusterProfiles()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(m.log, "bench-services: warning: --profile: %v\n", err)
		return noProfiles
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for k := 1; ; k++ {
			path := filepath.Join(dir, fmt.Sprintf("cpu-%s-r%d-%s-%02d.pprof", m.r.APIServer, m.r.Round, phase, k))
			if err := metrics.CPUProfile(m.ctx, m.profiled, m.o.ProfileDuration, path); err != nil {
				fmt.Fprintf(m.log, "bench-services: warning: %v\n", err)
				return
			}
			fmt.Fprintf(m.log, "bench-services: %s round %d: CPU profile %d of the %s phase in %s\n", m.r.APIServer, m.r.Round, k, phase, path)
			select {
			case <-done:
				return
			default:
			}
		}
	})
	var once sync.Once
	return phaseProfiles{stop: func() { once.Do(func() { close(done) }) }, wait: wg.Wait}
}
