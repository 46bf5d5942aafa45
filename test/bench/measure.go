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

package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/netfork/netfork/internal/pki"

	"github.com/netfork/netfork/test/internal/clustercheck"
)

const (
	// settleTimeout bounds the wait for extra ServiceCIDRs to reach the allocator and
	// for the post-delete state to settle.
	settleTimeout = 30 * time.Second
	// bytesPerMB converts RSS for the report.
	bytesPerMB = 1 << 20
	// phaseCreate and phaseDelete name the two timed phases, for --profile-phase.
	phaseCreate, phaseDelete = "create", "delete"
)

// measure performs one run on a fresh cluster: set up, create and time N Services, count
// the allocators' lost races and etcd requests, read the live heap, check consistency,
// delete and time them (unless the run is create-only), check again, read the apiservers'
// peak RSS and stop everything. Each phase's CPU time is read around it.
// Heap readings (each after a forced GC) bracket both phases, outside their timing. Whatever goes wrong is recorded in the
// result, which is then not consistent.
func measure(ctx context.Context, o *options, spec runSpec, p *pki.PKI, dirs layout, log io.Writer) (r result) {
	start := time.Now()
	c := spec.contender
	r = newResult(o, spec)
	defer func() { r.finish(start) }()
	fmt.Fprintf(log, "bench-services: %s: starting etcd and %s\n", spec.name(), c.binary(o))

	cl, err := startCluster(ctx, o, c, p, dirs, spec.name())
	if err != nil {
		r.failf("starting: %v", err)
		return r
	}
	defer cl.stop(!o.KeepData)
	if err := prepare(ctx, o, cl, spec); err != nil {
		r.failf("preparing: %v", err)
		return r
	}

	before, err := readCounters(ctx, cl)
	if err != nil {
		r.failf("before creating: %v", err)
		return r
	}
	heapBefore, err := readHeapAt(ctx, o, cl, spec, "before-create", dirs, log)
	if err != nil {
		r.failf("before creating: %v", err)
		return r
	}
	defer startProfile(ctx, o, cl, spec, phaseCreate, dirs, log)()
	cpuBefore, cpuErr := readCPU(cl)
	phaseCtx, cancel := context.WithTimeout(ctx, o.PhaseTimeout)
	create := createServices(phaseCtx, cl.clients(), spec.n, o.Workers, spec.createPace, c.headless)
	cancel()
	r.CPUPerCreate, err = cpuPerService(cpuBefore, cpuErr, cl, spec.n)
	if err != nil {
		r.failf("creating: %v", err)
	}
	afterCreate, err := readCounters(ctx, cl)
	if err != nil {
		r.failf("after creating: %v", err)
	} else {
		r.Collisions = afterCreate.collisions - before.collisions
		r.EtcdPerCreate = perService(before.etcdRequests, afterCreate.etcdRequests, spec.n)
	}
	r.CreatesPerSec, r.Create, r.CreateFailures = create.perSecond(spec.n), toMS(summarize(create.latencies)), create.failures
	heapCreated, err := readHeapAt(ctx, o, cl, spec, "created", dirs, log)
	if err != nil {
		r.failf("after creating: %v", err)
	} else {
		r.LiveHeapMB = float64(heapCreated.inuse) / bytesPerMB
		r.HeapPerServiceKB = perServiceKB(heapBefore.inuse, heapCreated.inuse, spec.n)
		r.AllocPerCreateKB = perServiceKB(heapBefore.alloc, heapCreated.alloc, spec.n)
	}
	if create.failures > 0 {
		r.failf("%d of %d creates failed, first: %v", create.failures, spec.n, create.firstFailure)
	}
	exp := expectations{services: spec.n, headless: c.headless, ipAddresses: c.ipAddresses, clusterIPBitmap: c.clusterIPBitmap}
	snap, problems, err := checkNow(ctx, cl, exp)
	if err != nil {
		r.failf("after creating: %v", err)
		return r
	}
	r.InExtraCIDRs = outsideDefaultRange(snap)
	for _, problem := range problems {
		r.failf("after creating: %s", problem)
	}
	if spec.createOnly {
		readPeakRSS(cl, &r)
		return r
	}
	if err := compact(ctx, cl.etcdClient); err != nil {
		r.failf("%v", err)
		return r
	}
	beforeDelete, err := readCounters(ctx, cl)
	if err != nil {
		r.failf("before deleting: %v", err)
		return r
	}

	heapBeforeDelete, err := readHeapAt(ctx, o, cl, spec, "before-delete", dirs, log)
	if err != nil {
		r.failf("before deleting: %v", err)
		return r
	}

	defer startProfile(ctx, o, cl, spec, phaseDelete, dirs, log)()
	cpuBefore, cpuErr = readCPU(cl)
	phaseCtx, cancel = context.WithTimeout(ctx, o.PhaseTimeout)
	del := deleteServices(phaseCtx, cl.clients(), spec.n, o.Workers, spec.deletePace)
	cancel()
	r.CPUPerDelete, err = cpuPerService(cpuBefore, cpuErr, cl, spec.n)
	if err != nil {
		r.failf("deleting: %v", err)
	}
	if heapDeleted, err := readHeapAt(ctx, o, cl, spec, "deleted", dirs, log); err != nil {
		r.failf("after deleting: %v", err)
	} else {
		r.AllocPerDeleteKB = perServiceKB(heapBeforeDelete.alloc, heapDeleted.alloc, spec.n)
	}
	r.DeletesPerSec, r.Delete, r.DeleteFailures = del.perSecond(spec.n), toMS(summarize(del.latencies)), del.failures
	if afterDelete, err := readCounters(ctx, cl); err != nil {
		r.failf("after deleting: %v", err)
	} else {
		r.EtcdPerDelete = perService(beforeDelete.etcdRequests, afterDelete.etcdRequests, spec.n)
	}
	if del.failures > 0 {
		r.failf("%d of %d deletes failed, first: %v", del.failures, spec.n, del.firstFailure)
	}
	exp.services = 0
	if problems, err := checkSettled(ctx, cl, exp); err != nil {
		r.failf("after deleting: %v", err)
	} else {
		for _, problem := range problems {
			r.failf("after deleting: %s", problem)
		}
	}

	readPeakRSS(cl, &r)
	return r
}

// readPeakRSS records the apiservers' summed peak RSS, or that one of them has exited.
func readPeakRSS(cl *cluster, r *result) {
	var rss int64
	for _, a := range cl.apiservers {
		select {
		case <-a.process.Done():
			r.failf("%v", a.process.ExitError())
			return
		default:
		}
		peak, err := peakRSSBytes(a.process.Pid())
		if err != nil {
			r.failf("%v", err)
		}
		rss += peak
	}
	r.PeakRSSMB = float64(rss) / bytesPerMB
}

// cpuReading is the CPU time used so far by a run's apiservers (summed) and by the
// benchmark's own process, which holds the client workers and the embedded etcd.
type cpuReading struct{ apiservers, harness time.Duration }

// readCPU takes a cpuReading of the cluster's processes.
func readCPU(cl *cluster) (cpuReading, error) {
	var c cpuReading
	for _, a := range cl.apiservers {
		t, err := cpuTime(a.process.Pid())
		if err != nil {
			return c, fmt.Errorf("apiserver pid %d: %w", a.process.Pid(), err)
		}
		c.apiservers += t
	}
	var err error
	c.harness, err = selfCPUTime()
	return c, err
}

// cpuPerService reads the CPU time again and divides what was used since before (taken
// with error beforeErr) by n Services.
func cpuPerService(before cpuReading, beforeErr error, cl *cluster, n int) (cpuMS, error) {
	if beforeErr != nil {
		return cpuMS{}, beforeErr
	}
	after, err := readCPU(cl)
	if err != nil || n <= 0 {
		return cpuMS{}, err
	}
	perService := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(n) }
	return cpuMS{APIServers: perService(after.apiservers - before.apiservers), Harness: perService(after.harness - before.harness)}, nil
}

// prepare creates the bench namespace and the extra ServiceCIDRs, and waits until the
// allocator can use the latter.
func prepare(ctx context.Context, o *options, cl *cluster, spec runSpec) error {
	if err := createNamespace(ctx, cl.client); err != nil {
		return err
	}
	if spec.cidrs == 0 {
		return nil
	}
	if err := createExtraCIDRs(ctx, cl.client, spec.cidrs, o.Workers); err != nil {
		return err
	}
	if !spec.contender.usesServiceCIDRs {
		return nil
	}
	for _, client := range cl.clients() {
		if err := waitExtraCIDRsUsable(ctx, client, spec.cidrs, settleTimeout); err != nil {
			return err
		}
	}
	return nil
}

// checkNow takes one snapshot and checks it.
func checkNow(ctx context.Context, cl *cluster, exp expectations) (snapshot, []string, error) {
	snap, err := takeSnapshot(ctx, cl.client, clustercheck.EtcdBitmaps{Client: cl.etcdClient})
	if err != nil {
		return snap, nil, err
	}
	return snap, check(snap, exp), nil
}

// checkSettled checks until the snapshot is consistent or settleTimeout passes, since a
// release may reach etcd a moment after the delete call returns; a leak outlasts it.
func checkSettled(ctx context.Context, cl *cluster, exp expectations) ([]string, error) {
	deadline := time.Now().Add(settleTimeout)
	for {
		_, problems, err := checkNow(ctx, cl, exp)
		if err != nil || len(problems) == 0 || time.Now().After(deadline) {
			return problems, err
		}
		select {
		case <-ctx.Done():
			return problems, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// compact compacts etcd to its current revision between the phases, so the delete phase
// reuses the space the create phase's bitmap revisions took instead of growing the database.
func compact(ctx context.Context, client *clientv3.Client) error {
	resp, err := client.Get(ctx, clustercheck.DefaultEtcdPrefix+nodePortBitmapKey)
	if err != nil {
		return fmt.Errorf("compacting etcd: %w", err)
	}
	if _, err := client.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		return fmt.Errorf("compacting etcd at revision %d: %w", resp.Header.Revision, err)
	}
	return nil
}

// outsideDefaultRange counts the ClusterIPs the allocator took from the extra ServiceCIDRs.
func outsideDefaultRange(s snapshot) int {
	def := netip.MustParsePrefix(serviceCIDR)
	n := 0
	for _, svc := range s.services {
		for _, ip := range clustercheck.ServiceClusterIPs(svc) {
			if addr, err := netip.ParseAddr(ip); err == nil && !def.Contains(addr) {
				n++
			}
		}
	}
	return n
}

// readHeapAt reads the apiservers' heaps at a point of the run and, for --profile, keeps
// the run's (first apiserver's) profile as heap-<point>-<run>.pprof, so that
// two points can be compared (go tool pprof -sample_index=alloc_space -diff_base A B);
// like the CPU profile, a profile that cannot be kept is only a warning.
func readHeapAt(ctx context.Context, o *options, cl *cluster, spec runSpec, point string, dirs layout, log io.Writer) (heapStats, error) {
	h, raw, err := readHeap(ctx, cl)
	if err != nil || !o.Profile {
		return h, err
	}
	path := filepath.Join(dirs.profiles, "heap-"+point+"-"+spec.name()+".pprof")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		fmt.Fprintf(log, "bench-services: %s: warning: heap profile: %v\n", spec.name(), err)
		return h, nil
	}
	fmt.Fprintf(log, "bench-services: %s: heap profile (%s) in %s\n", spec.name(), point, path)
	return h, nil
}

// startProfile takes a CPU profile of the run's (first) apiserver from now on, in
// the background, when phase is --profile-phase, and returns a function that waits for
// it; a failed profile is a warning, not a failed run, since it says nothing about the
// contender.
func startProfile(ctx context.Context, o *options, cl *cluster, spec runSpec, phase string, dirs layout, log io.Writer) func() {
	if !o.Profile || phase != o.ProfilePhase {
		return func() {}
	}
	path := filepath.Join(dirs.profiles, "cpu-"+phase+"-"+spec.name()+".pprof")
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := cpuProfile(ctx, cl.client, o.ProfileDuration, path); err != nil {
			fmt.Fprintf(log, "bench-services: %s: warning: %v\n", spec.name(), err)
			return
		}
		fmt.Fprintf(log, "bench-services: %s: CPU profile from the start of the %s phase in %s\n", spec.name(), phase, path)
	})
	return wg.Wait
}
