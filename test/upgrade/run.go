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
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/netfork/netfork/test/internal/clustercheck"
)

// keepNamespace holds the Services every step must keep.
const keepNamespace = "netfork-keep"

// summary is one step's line in the final table.
type summary struct {
	scenario, step string
	ok             bool
	seconds        int
	failed         string
}

// runner runs scenarios and collects their summaries.
type runner struct {
	o         *options
	out       io.Writer
	summaries []summary
}

// runScenario starts local-up at the first step and rolls through the others.
func (r *runner) runScenario(ctx context.Context, sc scenario) error {
	// Everything the scenario starts (load, watch) ends with it, before the next scenario's
	// local-up takes the same front address with another CA.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lu := &localUp{binary: r.o.localUp, dataDir: r.o.dataDir + "/" + strings.ReplaceAll(sc.name, "/", "-"), port: r.o.port, binaries: r.o.binaries}
	defer lu.stop()
	start := time.Now()
	if err := lu.start(ctx, sc.steps[0].members); err != nil {
		return fmt.Errorf("scenario %s: %w", sc.name, err)
	}
	config, err := clientcmd.BuildConfigFromFlags("", lu.kubeconfig())
	if err != nil {
		return err
	}
	config.WarningHandler = rest.NoWarnings{}
	config.QPS, config.Burst = 50, 100
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	url, err := lu.etcdURL()
	if err != nil {
		return err
	}
	etcd, err := clientv3.New(clientv3.Config{Endpoints: []string{url}, DialTimeout: 5 * time.Second})
	if err != nil {
		return err
	}
	defer etcd.Close()
	if err := seed(ctx, cs); err != nil {
		return err
	}
	l, err := startLoad(ctx, cs)
	if err != nil {
		return err
	}
	defer l.stop()
	flaps, err := watchFamilies(ctx, config)
	if err != nil {
		return err
	}

	var before *clustercheck.Snapshot
	current := sc.steps[0].members
	for k, st := range sc.steps {
		stepStart, since, flapsAtStart, stops := time.Now(), time.Now(), flaps.count(), 0
		if k == 0 {
			stepStart = start
		}
		var restarted []int
		for i := range current {
			if current[i].String() == st.members[i].String() {
				continue
			}
			err := lu.replace(ctx, i, st.members[i])
			// An upstream apiserver that exits on upstream's repair race is started once
			// more, as its kubelet would; the step's table says so.
			if err != nil && st.members[i].binary != "netfork" && lu.hitRepairRace(i) {
				restarted = append(restarted, i)
				stops++
				err = lu.restart(ctx, i)
			}
			if err != nil {
				r.record(sc, st, stepStart, []string{err.Error()})
				return nil
			}
			current[i] = st.members[i]
			stops++
			if k > 0 && sc.steps[k-1].unsafe && !hasUnsafeMix(current) {
				since = time.Now() // The unsafe mix is gone: its warning may not show from here on.
			}
		}
		l.pause()
		result, extra, err := r.check(ctx, lu, cs, etcd, st, before, since)
		if err != nil {
			return err
		}
		extra = append(extra, loadRow(l.take(), stops))
		if len(restarted) > 0 {
			extra = append(extra, clustercheck.Row{Check: "upstream repair race", Status: "ok",
				Detail: fmt.Sprintf("apiserver %v started a second time: its first exited on kubernetes/kubernetes#130377", restarted)})
		}
		extra = append(extra, familyRow(flaps.count()-flapsAtStart, k == 0 || st.families != sc.steps[k-1].families))
		rows := append(result.Rows, extra...)
		clustercheck.PrintTable(r.out, fmt.Sprintf("\n== scenario %s, step %d/%d: %s (%.0fs)\n   %s", sc.name, k+1, len(sc.steps), st.name, time.Since(stepStart).Seconds(), membersLine(current)), rows)
		var failed []string
		for _, row := range rows {
			if row.Status == "FAIL" {
				failed = append(failed, row.Check)
			}
		}
		r.record(sc, st, stepStart, failed)
		before = result.Snapshot
		l.unpause()
	}
	fmt.Fprintf(r.out, "   the kubernetes Service changed families %d times over the scenario (each join or leave is one)\n", flaps.count())
	return nil
}

// check runs the cluster checks of one step, and the harness's own: every apiserver up,
// and after a downgrade to upstream the manual step of docs/differences.md when it is needed.
func (r *runner) check(ctx context.Context, lu *localUp, cs kubernetes.Interface, etcd *clientv3.Client, st step, before *clustercheck.Snapshot, since time.Time) (*clustercheck.Result, []clustercheck.Row, error) {
	opts := clustercheck.Options{
		Client: cs, Etcd: etcd, ClusterIPBitmaps: st.bitmaps, IPAddresses: fmt.Sprint(st.ipAddresses),
		Before: before, IgnoreNamespaces: []string{loadNamespace}, RepairInterval: r.o.repairInterval, Settle: r.o.settle,
		Shape: clustercheck.Shape{APIServers: 3, Families: st.families}, EventsSince: since,
	}
	if st.unsafe {
		opts.ExpectWarnings = []string{bitmapWarning}
	} else {
		opts.ForbidWarnings = []string{bitmapWarning}
	}
	var extra []clustercheck.Row
	if st.staleSliceStep {
		if row, ok := deleteStaleSlice(ctx, cs); ok {
			extra = append(extra, row)
		}
	}
	result, err := clustercheck.Run(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	status, err := lu.status(ctx)
	if err != nil {
		return nil, nil, err
	}
	var problems []string
	for _, s := range status {
		if s.State != "ready" || s.Exit != "" {
			problems = append(problems, fmt.Sprintf("apiserver %d is %s: %s", s.Index, s.State, s.Exit))
		}
	}
	row := clustercheck.Row{Check: "apiservers up", Status: "ok", Detail: "3 ready, none exited on its own"}
	if len(problems) > 0 {
		row = clustercheck.Row{Check: "apiservers up", Status: "FAIL", Detail: strings.Join(problems, "; ")}
	}
	return result, append([]clustercheck.Row{row}, extra...), nil
}

// familyRow judges the kubernetes Service's changes of ipFamilyPolicy during a step: once
// when the step changes the apiservers' families (or starts the cluster), never otherwise.
func familyRow(changes int, mayChange bool) clustercheck.Row {
	allowed := 0
	if mayChange {
		allowed = 1
	}
	row := clustercheck.Row{Check: "family changes", Status: "ok", Detail: fmt.Sprintf("%d (at most %d: no flapping)", changes, allowed)}
	if changes > allowed {
		row.Status = "FAIL"
	}
	return row
}

// deleteStaleSlice is the manual step of docs/differences.md after a downgrade to upstream apiservers:
// a kubernetes-ipv6 (or -ipv4) EndpointSlice left from dual-stack days is deleted by hand.
func deleteStaleSlice(ctx context.Context, cs kubernetes.Interface) (clustercheck.Row, bool) {
	for _, name := range []string{"kubernetes-ipv6", "kubernetes-ipv4"} {
		err := cs.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).Delete(ctx, name, metav1.DeleteOptions{})
		if err == nil {
			return clustercheck.Row{Check: "manual step", Status: "ok", Detail: "deleted the stale EndpointSlice " + name + " (docs/differences.md: a downgrade to upstream can leave it)"}, true
		}
	}
	return clustercheck.Row{}, false
}

// hasUnsafeMix tells whether members mix bitmap-only apiservers with IPAddress ones that
// do not dual-write.
func hasUnsafeMix(members [3]member) bool {
	bitmapOnly, noDualWrite := false, false
	for _, m := range members {
		flags := strings.Join(m.flags, " ")
		switch {
		case strings.Contains(flags, "MultiCIDRServiceAllocator=false"):
			bitmapOnly = true
		case !strings.Contains(flags, "DisableAllocatorDualWrite=false"):
			noDualWrite = true
		}
	}
	return bitmapOnly && noDualWrite
}

// membersLine shows what each apiserver runs.
func membersLine(members [3]member) string {
	var parts []string
	for i, m := range members {
		parts = append(parts, fmt.Sprintf("%d: %s", i, m))
	}
	return strings.Join(parts, " | ")
}

// record adds a step's line to the summary.
func (r *runner) record(sc scenario, st step, start time.Time, failed []string) {
	r.summaries = append(r.summaries, summary{scenario: sc.name, step: st.name, ok: len(failed) == 0,
		seconds: int(time.Since(start).Seconds()), failed: strings.Join(failed, ", ")})
}

// seed creates the Services every step must keep: ClusterIP, NodePort, dual-stack,
// static ClusterIP and NodePort, headless.
func seed(ctx context.Context, cs kubernetes.Interface) error {
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: keepNamespace}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("seeding: %w", err)
	}
	dual, prefer := corev1.IPFamilyPolicyRequireDualStack, corev1.IPFamilyPolicyPreferDualStack
	for _, spec := range []corev1.ServiceSpec{
		{},
		{Type: corev1.ServiceTypeNodePort},
		{IPFamilyPolicy: &dual},
		{Type: corev1.ServiceTypeNodePort, IPFamilyPolicy: &prefer},
		{ClusterIP: "10.96.0.201", Type: corev1.ServiceTypeNodePort},
		{ClusterIP: corev1.ClusterIPNone},
	} {
		spec.Ports = []corev1.ServicePort{{Port: 80}}
		if spec.ClusterIP == "10.96.0.201" {
			spec.Ports[0].NodePort = 30006
		}
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{GenerateName: "keep-"}, Spec: spec}
		if _, err := cs.CoreV1().Services(keepNamespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("seeding: %w", err)
		}
	}
	return nil
}

// familyWatch counts the kubernetes Service's changes of ipFamilyPolicy.
type familyWatch struct {
	mu      sync.Mutex
	changes int
	// polls counts completed reads, so count can wait for one that started after it.
	polls int
}

// count returns the changes seen up to a read that started after the call, so a
// change the cluster already shows is never left for the next step.
func (f *familyWatch) count() int {
	f.mu.Lock()
	target := f.polls + 2
	f.mu.Unlock()
	for deadline := time.Now().Add(10 * familyPollInterval); ; time.Sleep(familyPollInterval / 5) {
		f.mu.Lock()
		if f.polls >= target || !time.Now().Before(deadline) {
			defer f.mu.Unlock()
			return f.changes
		}
		f.mu.Unlock()
	}
}

// familyPollInterval is how often the kubernetes Service's families are read: a flap
// lasts at least one reconcile interval (10 s), so none slips between two reads.
const familyPollInterval = 500 * time.Millisecond

// watchFamilies reads the kubernetes Service every familyPollInterval until ctx ends
// and counts its changes of ipFamilyPolicy. It polls rather than watches: a watch
// through the front breaks whenever the apiserver serving it is replaced, and a
// resumed one can fall behind etcd's compaction and miss a change. config is copied
// without a rate limiter, so the load and the checks never delay a read.
func watchFamilies(ctx context.Context, config *rest.Config) (*familyWatch, error) {
	config = rest.CopyConfig(config)
	config.QPS = -1
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	f := &familyWatch{}
	last := ""
	go func() {
		ticker := time.NewTicker(familyPollInterval)
		defer ticker.Stop()
		for {
			svc, err := cs.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
			f.mu.Lock()
			if err == nil {
				if p := policyOf(svc); last != "" && p != last {
					f.changes++
				}
				last = policyOf(svc)
				f.polls++
			}
			f.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
		}
	}()
	return f, nil
}

// policyOf is a Service's ipFamilyPolicy, "" when unset.
func policyOf(svc *corev1.Service) string {
	if svc.Spec.IPFamilyPolicy == nil {
		return ""
	}
	return string(*svc.Spec.IPFamilyPolicy)
}
