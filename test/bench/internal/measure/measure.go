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
	"time"

	"github.com/netfork/netfork/internal/pki"

	"github.com/netfork/netfork/test/bench/internal/cluster"
	"github.com/netfork/netfork/test/bench/internal/consistency"
	"github.com/netfork/netfork/test/bench/internal/metrics"
	"github.com/netfork/netfork/test/bench/internal/plan"
	"github.com/netfork/netfork/test/bench/internal/result"
	"github.com/netfork/netfork/test/bench/internal/stats"
	"github.com/netfork/netfork/test/bench/internal/workload"
)

// bytesPerMB converts RSS and heap for the report.
const bytesPerMB = 1 << 20

// run is one run in progress: what it runs on and the result it fills.
type run struct {
	ctx  context.Context
	o    *plan.Options
	spec plan.Spec
	cl   *cluster.Cluster
	dirs plan.Layout
	log  io.Writer
	r    *result.Result
}

// NewResult is a run's result before it measured anything: what the run is, the pace it
// is held to, and the machine's load as it starts.
func NewResult(o *plan.Options, spec plan.Spec) result.Result {
	return result.Result{Contender: spec.Contender.Name, N: spec.N, Workers: o.Workers, Apiservers: o.Apiservers,
		CIDRs: spec.CIDRs, Round: spec.Round, CreateOnly: spec.CreateOnly, CreatePace: spec.CreatePace, DeletePace: spec.DeletePace,
		LoadAverage: metrics.LoadAverage()}
}

// Measure performs one run on a fresh cluster: set up, create and time N Services, count
// the allocators' lost races and etcd requests, read the live heap, check consistency,
// delete and time them (unless the run is create-only), check again, read the apiservers'
// peak RSS and stop everything. Each phase's CPU time is read around it. Heap readings
// (each after a forced GC) bracket both phases, outside their timing. Whatever goes wrong
// is recorded in the result, which is then not consistent.
func Measure(ctx context.Context, o *plan.Options, spec plan.Spec, p *pki.PKI, dirs plan.Layout, log io.Writer) (r result.Result) {
	start := time.Now()
	c := spec.Contender
	r = NewResult(o, spec)
	defer func() { r.Finish(start) }()
	fmt.Fprintf(log, "bench-services: %s: starting etcd and %s\n", spec.Name(), c.Binary(o))

	cl, err := cluster.Start(ctx, cluster.Config{
		Name: spec.Name(), Binary: c.Binary(o), FeatureGates: c.FeatureGates,
		APIServers: o.Apiservers, ReadyTimeout: o.ReadyTimeout,
		DataDir: dirs.Data, LogDir: dirs.Logs, KeepData: o.KeepData, PKI: p,
	})
	if err != nil {
		r.Failf("starting: %v", err)
		return r
	}
	defer cl.Stop()
	if err := prepare(ctx, o, cl, spec); err != nil {
		r.Failf("preparing: %v", err)
		return r
	}
	m := &run{ctx: ctx, o: o, spec: spec, cl: cl, dirs: dirs, log: log, r: &r}
	waitCreateProfile, ok := m.createPhase()
	defer waitCreateProfile()
	if !ok {
		return r
	}
	if !spec.CreateOnly {
		waitDeleteProfile, ok := m.deletePhase()
		defer waitDeleteProfile()
		if !ok {
			return r
		}
	}
	readPeakRSS(cl, &r)
	return r
}

// createPhase times the create phase and checks what it left; it returns a function that
// waits for the phase's CPU profile, and false when the run cannot go on.
func (m *run) createPhase() (func(), bool) {
	ctx, o, spec, cl, r := m.ctx, m.o, m.spec, m.cl, m.r
	c := spec.Contender
	before, err := metrics.ReadCounters(ctx, cl)
	if err != nil {
		r.Failf("before creating: %v", err)
		return func() {}, false
	}
	heapBefore, err := m.readHeapAt("before-create")
	if err != nil {
		r.Failf("before creating: %v", err)
		return func() {}, false
	}
	wait := m.startProfile(plan.PhaseCreate)
	cpuBefore, cpuErr := metrics.ReadCPU(cl)
	phaseCtx, cancel := context.WithTimeout(ctx, o.PhaseTimeout)
	create := workload.CreateServices(phaseCtx, cl.Clients(), spec.N, o.Workers, spec.CreatePace, workload.Shape{Headless: c.Headless})
	cancel()
	r.CPUPerCreate, err = metrics.CPUPerService(cpuBefore, cpuErr, cl, spec.N)
	if err != nil {
		r.Failf("creating: %v", err)
	}
	afterCreate, err := metrics.ReadCounters(ctx, cl)
	if err != nil {
		r.Failf("after creating: %v", err)
	} else {
		r.Collisions = afterCreate.Collisions - before.Collisions
		r.EtcdPerCreate = metrics.PerService(before.EtcdRequests, afterCreate.EtcdRequests, spec.N)
	}
	r.CreatesPerSec, r.Create, r.CreateFailures = create.PerSecond(spec.N), result.ToMS(stats.Summarize(create.Latencies)), create.Failures
	heapCreated, err := m.readHeapAt("created")
	if err != nil {
		r.Failf("after creating: %v", err)
	} else {
		r.LiveHeapMB = float64(heapCreated.Inuse) / bytesPerMB
		r.HeapPerServiceKB = metrics.PerServiceKB(heapBefore.Inuse, heapCreated.Inuse, spec.N)
		r.AllocPerCreateKB = metrics.PerServiceKB(heapBefore.Alloc, heapCreated.Alloc, spec.N)
	}
	if create.Failures > 0 {
		r.Failf("%d of %d creates failed, first: %v", create.Failures, spec.N, create.FirstFailure)
	}
	snap, problems, err := checkNow(ctx, cl, m.expect(spec.N))
	if err != nil {
		r.Failf("after creating: %v", err)
		return wait, false
	}
	r.InExtraCIDRs = outsideDefaultRange(snap)
	for _, problem := range problems {
		r.Failf("after creating: %s", problem)
	}
	return wait, true
}

// deletePhase times the delete phase and checks that it released everything; it returns a
// function that waits for the phase's CPU profile, and false when the run cannot go on.
func (m *run) deletePhase() (func(), bool) {
	ctx, o, spec, cl, r := m.ctx, m.o, m.spec, m.cl, m.r
	if err := compact(ctx, cl.EtcdClient); err != nil {
		r.Failf("%v", err)
		return func() {}, false
	}
	beforeDelete, err := metrics.ReadCounters(ctx, cl)
	if err != nil {
		r.Failf("before deleting: %v", err)
		return func() {}, false
	}
	heapBeforeDelete, err := m.readHeapAt("before-delete")
	if err != nil {
		r.Failf("before deleting: %v", err)
		return func() {}, false
	}
	wait := m.startProfile(plan.PhaseDelete)
	cpuBefore, cpuErr := metrics.ReadCPU(cl)
	phaseCtx, cancel := context.WithTimeout(ctx, o.PhaseTimeout)
	del := workload.DeleteServices(phaseCtx, cl.Clients(), spec.N, o.Workers, spec.DeletePace)
	cancel()
	r.CPUPerDelete, err = metrics.CPUPerService(cpuBefore, cpuErr, cl, spec.N)
	if err != nil {
		r.Failf("deleting: %v", err)
	}
	if heapDeleted, err := m.readHeapAt("deleted"); err != nil {
		r.Failf("after deleting: %v", err)
	} else {
		r.AllocPerDeleteKB = metrics.PerServiceKB(heapBeforeDelete.Alloc, heapDeleted.Alloc, spec.N)
	}
	r.DeletesPerSec, r.Delete, r.DeleteFailures = del.PerSecond(spec.N), result.ToMS(stats.Summarize(del.Latencies)), del.Failures
	if afterDelete, err := metrics.ReadCounters(ctx, cl); err != nil {
		r.Failf("after deleting: %v", err)
	} else {
		r.EtcdPerDelete = metrics.PerService(beforeDelete.EtcdRequests, afterDelete.EtcdRequests, spec.N)
	}
	if del.Failures > 0 {
		r.Failf("%d of %d deletes failed, first: %v", del.Failures, spec.N, del.FirstFailure)
	}
	if problems, err := checkSettled(ctx, cl, m.expect(0)); err != nil {
		r.Failf("after deleting: %v", err)
	} else {
		for _, problem := range problems {
			r.Failf("after deleting: %s", problem)
		}
	}
	return wait, true
}

// expect is what a consistent snapshot of the run holds with services bench Services.
func (m *run) expect(services int) consistency.Expectations {
	c := m.spec.Contender
	return consistency.Expectations{Services: services, Headless: c.Headless, IPAddresses: c.IPAddresses, ClusterIPBitmap: c.ClusterIPBitmap}
}

// readPeakRSS records the apiservers' summed peak RSS, or that one of them has exited.
func readPeakRSS(cl *cluster.Cluster, r *result.Result) {
	var rss int64
	for _, a := range cl.APIServers {
		select {
		case <-a.Process.Done():
			r.Failf("%v", a.Process.ExitError())
			return
		default:
		}
		peak, err := metrics.PeakRSSBytes(a.Process.Pid())
		if err != nil {
			r.Failf("%v", err)
		}
		rss += peak
	}
	r.PeakRSSMB = float64(rss) / bytesPerMB
}
