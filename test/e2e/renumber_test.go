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
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

// The renumber specs run kubectl servicecidr (NETFORK_E2E_SERVICECIDR names the binary, else
// kubectl-servicecidr on PATH) against the cluster, and roll its nodes through the hook's
// service-range, nodes and kubelet-config commands (kind/e2e-hook.sh).

const (
	// lrPluginTimeout bounds one run of the plugin.
	lrPluginTimeout = 15 * time.Minute
	// lrDefaultCIDR is the ServiceCIDR the apiservers keep from their flags.
	lrDefaultCIDR = "kubernetes"
)

// lrPlugin returns the kubectl servicecidr binary, failing the spec when there is none: the
// live-range specs are run on purpose, so a missing tool is an error, not a skip.
func lrPlugin() string {
	if p := os.Getenv("NETFORK_E2E_SERVICECIDR"); p != "" {
		return p
	}
	p, err := exec.LookPath("kubectl-servicecidr")
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "no kubectl-servicecidr: set NETFORK_E2E_SERVICECIDR or put make build's _output/bin on PATH")
	return p
}

// lrRun runs the plugin with args and returns its combined output and error. The spec's log
// gets each line with the time it came, in the probes' unix milliseconds, so a failed request
// can be placed among the plugin's steps.
func lrRun(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, lrPluginTimeout)
	defer cancel()
	cmd, out := lrCommand(ctx, args...)
	err := cmd.Run()
	fmt.Fprintf(ginkgo.GinkgoWriter, "kubectl servicecidr %s:\n%s\n", strings.Join(args, " "), out.stamped.String())
	return out.plain.String(), err
}

// lrCommand is the plugin run with args against the cluster under test, its stdout and
// stderr kept together in out.
func lrCommand(ctx context.Context, args ...string) (cmd *exec.Cmd, out *lrStamped) {
	out = &lrStamped{}
	cmd = exec.CommandContext(ctx, lrPlugin(), append(args, "--kubeconfig", *kubeconfig)...)
	cmd.Stdout, cmd.Stderr = out, out
	return cmd, out
}

// lrStamped keeps what a process writes, as it is and with each line's arrival time.
type lrStamped struct {
	mu             sync.Mutex
	plain, stamped bytes.Buffer
	partial        []byte
}

func (w *lrStamped) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.plain.Write(b)
	w.partial = append(w.partial, b...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(b), nil
		}
		fmt.Fprintf(&w.stamped, "%d %s", time.Now().UnixMilli(), w.partial[:i+1])
		w.partial = w.partial[i+1:]
	}
}

func (w *lrStamped) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.plain.String()
}

// lrMust runs the plugin and fails the spec unless it succeeds.
func lrMust(ctx context.Context, args ...string) string {
	out, err := lrRun(ctx, args...)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "kubectl servicecidr %s: %s", strings.Join(args, " "), out)
	return out
}

// lrTargets returns, for each of the cluster's Service ranges, the range of the same size
// right after it: the target of a renumber.
func lrTargets(from []netip.Prefix) []netip.Prefix {
	var to []netip.Prefix
	for _, p := range from {
		next := netip.PrefixFrom(dpAfter(p), p.Bits()).Masked()
		if !dpContained(next) {
			ginkgo.Fail(fmt.Sprintf("the range after %s, %s, is outside 198.18.0.0/15 and fc00::/7", p, next))
		}
		to = append(to, next)
	}
	return to
}

func lrJoin(ps []netip.Prefix) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

// lrInside reports whether every address of ips is in one of ranges.
func lrInside(ips []string, ranges []netip.Prefix) bool {
	for _, ip := range ips {
		a, err := netip.ParseAddr(ip)
		if err != nil {
			return false
		}
		in := false
		for _, p := range ranges {
			in = in || p.Contains(a)
		}
		if !in {
			return false
		}
	}
	return len(ips) > 0
}

// lrRoll rolls every apiserver, one at a time, to ranges through the hook, and returns how
// long each took.
func lrRoll(ctx context.Context, ranges []netip.Prefix) []time.Duration {
	var took []time.Duration
	for i := 0; i < apiserverCount(ctx); i++ {
		start := time.Now()
		hook(ctx, "service-range", strconv.Itoa(i), lrJoin(ranges))
		took = append(took, time.Since(start).Round(time.Second))
	}
	return took
}

// lrState reads the renumber's record, nil when there is none.
func lrState(ctx context.Context) *renumber.State {
	st, err := renumber.Recorded(ctx, client)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the renumber's record")
	return st
}

// lrKillMidway starts renumber --to and kills it (SIGKILL) once at least moved of the
// Services in ns have left their old addresses (flipped to ExternalName, or moved), and
// returns how many had: the renumber is left half-done, as an interrupted run leaves it.
// The Services the kill left as ExternalName go into w.interrupted.
func lrKillMidway(ctx context.Context, w *lrWorkload, to []netip.Prefix, moved int) int {
	ns := w.ns
	cmd, out := lrCommand(ctx, "renumber", "--to", lrJoin(to))
	gomega.Expect(cmd.Start()).To(gomega.Succeed())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var seen int
	gomega.Eventually(ctx, func(ctx context.Context) (int, error) {
		select {
		case err := <-done:
			return 0, gomega.StopTrying(fmt.Sprintf("renumber ended (%v) before it was killed: %s", err, out.String()))
		default:
		}
		seen = 0
		for _, s := range lrServices(ctx, ns) {
			if s.Spec.Type == corev1.ServiceTypeExternalName || lrInside(s.Spec.ClusterIPs, to) {
				seen++
			}
		}
		return seen, nil
	}).WithTimeout(lrPluginTimeout).WithPolling(100 * time.Millisecond).Should(gomega.BeNumerically(">=", moved))
	gomega.Expect(cmd.Process.Kill()).To(gomega.Succeed())
	err := <-done
	gomega.Expect(err).To(gomega.HaveOccurred(), "renumber exited cleanly although it was killed")
	fmt.Fprintf(ginkgo.GinkgoWriter, "renumber killed (%v) with %d Services moved or moving:\n%s\n", err, seen, out.stamped.String())
	for name, s := range lrServices(ctx, ns) {
		if s.Spec.Type == corev1.ServiceTypeExternalName {
			w.interrupted = append(w.interrupted, name)
		}
	}
	return seen
}

// lrServices returns the spec's Services by name.
func lrServices(ctx context.Context, ns string) map[string]corev1.Service {
	list, err := client.CoreV1().Services(ns).List(ctx, metav1.ListOptions{LabelSelector: lrLabel + "=true"})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	out := map[string]corev1.Service{}
	for _, s := range list.Items {
		out[s.Name] = s
	}
	return out
}

// lrExpectMoved checks that each of names exists with its UID from before and ClusterIPs in
// ranges, and returns their ClusterIPs in names' order.
func lrExpectMoved(ctx context.Context, ns string, names []string, uids map[string]types.UID, ranges []netip.Prefix) []string {
	now := lrServices(ctx, ns)
	var ips []string
	for _, name := range names {
		s, ok := now[name]
		gomega.Expect(ok).To(gomega.BeTrue(), "Service %s/%s is gone", ns, name)
		gomega.Expect(s.UID).To(gomega.Equal(uids[name]), "Service %s/%s was recreated", ns, name)
		gomega.Expect(lrInside(s.Spec.ClusterIPs, ranges)).To(gomega.BeTrue(), "Service %s/%s has ClusterIPs %v, not in %s", ns, name, s.Spec.ClusterIPs, lrJoin(ranges))
		ips = append(ips, s.Spec.ClusterIP)
	}
	return ips
}

// lrReloadKubelets rewrites every node's kubelet configuration from kubeadm's kubelet-config
// ConfigMap, which the renumber updated with the DNS Service's new address, and restarts it.
func lrReloadKubelets(ctx context.Context) {
	for _, node := range strings.Fields(hook(ctx, "nodes")) {
		hook(ctx, "kubelet-config", node)
	}
}

// lrRestartOld restarts, through their controllers, the pods that started before since and
// may hold old addresses (not on the host network): what finish waits for. A pod without a
// controller fails the spec: the operator would have to recreate it by hand.
func lrRestartOld(ctx context.Context, since time.Time) []string {
	pods, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	owners := sets.New[string]()
	for _, p := range pods.Items {
		if !lrMayHoldOld(&p, since) || p.DeletionTimestamp != nil {
			continue
		}
		ref := metav1.GetControllerOf(&p)
		gomega.Expect(ref).NotTo(gomega.BeNil(), "pod %s/%s predates the cut-over and has no controller to restart it", p.Namespace, p.Name)
		kind, name := ref.Kind, ref.Name
		if kind == "ReplicaSet" {
			rs, err := client.AppsV1().ReplicaSets(p.Namespace).Get(ctx, name, metav1.GetOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			dep := metav1.GetControllerOf(rs)
			gomega.Expect(dep).NotTo(gomega.BeNil(), "ReplicaSet %s/%s has no Deployment", p.Namespace, name)
			kind, name = dep.Kind, dep.Name
		}
		owners.Insert(kind + "/" + p.Namespace + "/" + name)
	}
	patch := []byte(fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":%q}}}}}`, time.Now().Format(time.RFC3339)))
	for _, o := range sets.List(owners) {
		f := strings.SplitN(o, "/", 3)
		var err error
		switch f[0] {
		case "Deployment":
			_, err = client.AppsV1().Deployments(f[1]).Patch(ctx, f[2], types.StrategicMergePatchType, patch, metav1.PatchOptions{})
		case "DaemonSet":
			_, err = client.AppsV1().DaemonSets(f[1]).Patch(ctx, f[2], types.StrategicMergePatchType, patch, metav1.PatchOptions{})
		case "StatefulSet":
			_, err = client.AppsV1().StatefulSets(f[1]).Patch(ctx, f[2], types.StrategicMergePatchType, patch, metav1.PatchOptions{})
		default:
			err = fmt.Errorf("cannot restart a %s", f[0])
		}
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "restarting %s", o)
	}
	gomega.Eventually(ctx, func(ctx context.Context) ([]string, error) {
		pods, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		var old []string
		for _, p := range pods.Items {
			if lrMayHoldOld(&p, since) {
				old = append(old, p.Namespace+"/"+p.Name)
			}
		}
		return old, err
	}).WithTimeout(5*time.Minute).WithPolling(time.Second).Should(gomega.BeEmpty(), "pods from before the cut-over still run")
	return sets.List(owners)
}

// lrMayHoldOld tells whether pod p may hold an old address: it started before since, is not
// on the host network and has not ended.
func lrMayHoldOld(p *corev1.Pod, since time.Time) bool {
	return !p.Spec.HostNetwork && p.CreationTimestamp.Time.Before(since) &&
		p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// lrWaitDefaultCIDR waits until the apiservers' own ServiceCIDR holds ranges, which they
// recreate from their flags once the old one is gone.
func lrWaitDefaultCIDR(ctx context.Context, ranges []netip.Prefix) {
	want := strings.Split(lrJoin(ranges), ",")
	gomega.Eventually(ctx, func(ctx context.Context) ([]string, error) {
		c, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, lrDefaultCIDR, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return c.Spec.CIDRs, nil
	}).WithTimeout(2*cidrDeletionTimeout).WithPolling(time.Second).Should(gomega.Equal(want), "ServiceCIDR %s", lrDefaultCIDR)
}

// lrWaitGone waits until ServiceCIDR name is gone.
func lrWaitGone(ctx context.Context, name string) {
	gomega.Eventually(ctx, func(ctx context.Context) bool {
		_, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}).WithTimeout(2*cidrDeletionTimeout).WithPolling(time.Second).Should(gomega.BeTrue(), "ServiceCIDR %s still exists", name)
}

// lrKubernetesIPs returns the kubernetes Service's ClusterIPs.
func lrKubernetesIPs(ctx context.Context) []string {
	s, err := client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return s.Spec.ClusterIPs
}

// lrTimer records named durations for the report.
type lrTimer struct {
	lines []string
	start time.Time
}

func (t *lrTimer) begin() { t.start = time.Now() }

func (t *lrTimer) end(format string, args ...any) {
	t.lines = append(t.lines, fmt.Sprintf(format, args...)+fmt.Sprintf(": %v", time.Since(t.start).Round(time.Second)))
}

// lrStartRenumber starts a renumber spec: the number of Services, the cluster's ranges and the
// target, the workload with its probes running, and the apiservers rolled to the target one at
// a time (phase roll), with the timer holding how long each took.
func lrStartRenumber(ctx context.Context) (int, []netip.Prefix, []netip.Prefix, *lrWorkload, *lrTimer) {
	n := lrServiceCount()
	requireHook()
	lrPlugin()
	from := requireIPAddressMode(ctx).serviceRanges
	to := lrTargets(from)
	w := lrStartWorkload(ctx, n)
	w.clock.mark("roll")
	took := lrRoll(ctx, to)
	w.waitAPI(ctx)
	timer := &lrTimer{lines: []string{fmt.Sprintf("apiservers rolled to %s, one at a time: %v", lrJoin(to), took)}}
	return n, from, to, w, timer
}

// lrRenumberSpec moves every Service of a live cluster to the range after the current one with
// kubectl servicecidr, under probes: the apiservers rolled one at a time, a renumber killed
// midway and run again, kubelets reloaded, the grace period, the pods that predate the cut-over
// restarted, finish, and the apiservers' own ServiceCIDR at the target.
func lrRenumberSpec(ctx context.Context) {
	n, from, to, w, timer := lrStartRenumber(ctx)

	w.clock.mark("renumber")
	timer.begin()
	plan := lrMust(ctx, "plan", "--to", lrJoin(to))
	for _, name := range w.names {
		gomega.Expect(plan).To(gomega.ContainSubstring(w.ns+"/"+name), "the plan does not list Service %s", name)
	}
	killedAt := lrKillMidway(ctx, w, to, n/2)
	w.clock.mark("resume")
	w.excuse("resume")
	lrMust(ctx, "renumber", "--to", lrJoin(to))
	timer.end("renumber of %d Services (killed once with %d moved, then run again to the end)", n, killedAt)
	st := lrState(ctx)
	gomega.Expect(st).NotTo(gomega.BeNil())
	gomega.Expect(st.Phase).To(gomega.Equal(renumber.PhaseRenumbered))
	gomega.Expect(st.CutOver).NotTo(gomega.BeNil())
	newIPs := lrExpectMoved(ctx, w.ns, w.names, w.uids, to)
	gomega.Expect(lrInside(lrKubernetesIPs(ctx), to)).To(gomega.BeTrue(), "the kubernetes Service is at %v, not in %s", lrKubernetesIPs(ctx), lrJoin(to))

	w.clock.mark("kubelets")
	timer.begin()
	lrReloadKubelets(ctx)
	timer.end("kubelets reloaded with the DNS Service's new address")

	w.clock.mark("grace")
	w.startAfter(ctx, newIPs)
	w.waitRounds(ctx, 2)
	out, err := lrRun(ctx, "finish")
	gomega.Expect(err).To(gomega.HaveOccurred(), "finish did not refuse while pods from before the cut-over run: %s", out)
	gomega.Expect(out).To(gomega.ContainSubstring(w.old[0].pod), "finish's refusal does not name the probes that predate the cut-over")

	w.clock.mark("restart")
	timer.begin()
	w.stopOld(ctx)
	restarted := lrRestartOld(ctx, st.CutOver.Time)
	timer.end("pods from before the cut-over restarted through %v", restarted)

	w.clock.mark("finish")
	timer.begin()
	lrMust(ctx, "finish")
	lrWaitDefaultCIDR(ctx, to)
	lrMust(ctx, "finish")
	lrWaitGone(ctx, renumber.TargetServiceCIDRName)
	timer.end("finish to the apiservers' own ServiceCIDR at %s and %s gone", lrJoin(to), renumber.TargetServiceCIDRName)

	w.clock.mark("end")
	lrExpectMoved(ctx, w.ns, w.names, w.uids, to)
	w.expectReachable(ctx, append(append([]string{}, w.names...), newIPs...))
	w.report(ctx, append([]string{fmt.Sprintf("Services probed: %d, renumbered %s -> %s", n, lrJoin(from), lrJoin(to))}, timer.lines...))
}

// lrRollbackSpec rolls a renumber back from each step before its cut-over, under the same
// probes: killed midway; then run again to just before the cut-over (every Service moved, the
// kubernetes Service too), where rollback moves every Service back and leaves the kubernetes
// Service until the apiservers are rolled back, and after that roll puts it back. At the end
// every Service is at its old addresses again, with its UID.
func lrRollbackSpec(ctx context.Context) {
	n, from, to, w, timer := lrStartRenumber(ctx)
	oldKubernetes := lrKubernetesIPs(ctx)

	w.clock.mark("renumber")
	killedAt := lrKillMidway(ctx, w, to, n/2)
	timer.lines = append(timer.lines, fmt.Sprintf("renumber killed with %d of %d Services moved", killedAt, n))

	w.clock.mark("rollback")
	w.excuse("rollback")
	timer.begin()
	lrMust(ctx, "rollback")
	timer.end("rollback")
	gomega.Expect(lrState(ctx)).To(gomega.BeNil(), "the record is left after the rollback")
	lrWaitGone(ctx, renumber.TargetServiceCIDRName)
	gomega.Expect(lrExpectMoved(ctx, w.ns, w.names, w.uids, from)).To(gomega.Equal(w.ips), "Services not back at their old ClusterIPs")

	w.clock.mark("moved")
	timer.begin()
	lrMust(ctx, "renumber", "--to", lrJoin(to), "--stop-before-cut-over")
	timer.end("renumber again, stopped before the cut-over")
	st := lrState(ctx)
	gomega.Expect(st).NotTo(gomega.BeNil())
	gomega.Expect(st.Phase).To(gomega.Equal(renumber.PhaseMoving))
	gomega.Expect(st.CutOver).To(gomega.BeNil())
	lrExpectMoved(ctx, w.ns, w.names, w.uids, to)
	gomega.Expect(lrInside(lrKubernetesIPs(ctx), to)).To(gomega.BeTrue(), "the kubernetes Service is at %v, not in %s", lrKubernetesIPs(ctx), lrJoin(to))

	w.clock.mark("rollback-all")
	timer.begin()
	out := lrMust(ctx, "rollback")
	timer.end("rollback of every Service, the apiservers still at the target")
	gomega.Expect(out).To(gomega.ContainSubstring("roll the apiservers back to --service-cluster-ip-range="+lrJoin(from)), "rollback does not say the kubernetes Service waits for the apiservers")
	gomega.Expect(lrState(ctx).Phase).To(gomega.Equal(renumber.PhaseRollingBack))
	gomega.Expect(lrExpectMoved(ctx, w.ns, w.names, w.uids, from)).To(gomega.Equal(w.ips), "Services not back at their old ClusterIPs")

	w.clock.mark("unroll")
	took := lrRoll(ctx, from)
	w.waitAPI(ctx)
	timer.lines = append(timer.lines, fmt.Sprintf("apiservers rolled back to %s: %v", lrJoin(from), took))

	w.clock.mark("rollback-kubernetes")
	timer.begin()
	lrMust(ctx, "rollback")
	timer.end("rollback of the kubernetes Service")
	gomega.Expect(lrState(ctx)).To(gomega.BeNil(), "the record is left after the rollback")
	lrWaitGone(ctx, renumber.TargetServiceCIDRName)
	gomega.Expect(lrKubernetesIPs(ctx)).To(gomega.Equal(oldKubernetes), "the kubernetes Service is not back at its old addresses")

	w.clock.mark("end")
	gomega.Expect(lrExpectMoved(ctx, w.ns, w.names, w.uids, from)).To(gomega.Equal(w.ips))
	w.expectReachable(ctx, append(append([]string{}, w.names...), w.ips...))
	w.report(ctx, append([]string{fmt.Sprintf("Services probed: %d, renumber %s -> %s rolled back", n, lrJoin(from), lrJoin(to))}, timer.lines...))
}

// lrHTTPServer is dpHTTPServer on both families where the network namespace has IPv6 (socat's
// TCP-LISTEN is IPv4 only), so that a Service turned dual-stack reaches it at the node's IPv6
// address too, and on IPv4 alone where it has not.
const lrHTTPServer = dpServeScript + `socat -T 5 TCP6-LISTEN:8080,ipv6only=0,fork,reuseaddr EXEC:"sh /tmp/serve.sh" ||
exec socat -T 5 TCP-LISTEN:8080,fork,reuseaddr EXEC:"sh /tmp/serve.sh"`

// lrWorkload is a renumber spec's workload: a backend, the Services it backs, and the probes.
type lrWorkload struct {
	ns    string
	nodes []corev1.Node
	clock *lrClock
	// names, ips and uids are the Services as created.
	names, ips []string
	uids       map[string]types.UID
	// old are the probes started before the renumber, after those started after it.
	old, after []*lrProbe
	// exempt names, per phase, why the API probes' failures in it are not held against
	// the thresholds.
	exempt map[string]string
	// interrupted are the Services a killed run left as ExternalName, without their bridge.
	interrupted []string
	// excused are, per phase, the targets whose failures are counted apart.
	excused map[string]sets.Set[string]
}

// excuse counts apart, in phase, the failures to the Services a killed run left between its
// steps (by name, and by their old ClusterIPs): they have no old address until the next run
// bridges them, which is what the kill costs, not what the renumber does.
func (w *lrWorkload) excuse(phase string) {
	targets := sets.New[string]()
	for i, name := range w.names {
		if sets.New(w.interrupted...).Has(name) {
			targets.Insert(name, w.ips[i])
		}
	}
	w.excused[phase] = targets
}

// lrStartWorkload starts a backend on the host network, n Services for it, and the probes
// by name, by ClusterIP and to the apiserver; it returns once each probe has done a round.
// The backend is on the host network so that it is not among the pods finish waits for: the
// spec measures the renumber and the restarts it needs, not a redeploy of the user's backends.
func lrStartWorkload(ctx context.Context, n int) *lrWorkload {
	w := &lrWorkload{nodes: dpSchedulableNodes(ctx), ns: dpNamespace(ctx), clock: &lrClock{}, uids: map[string]types.UID{}, exempt: map[string]string{}, excused: map[string]sets.Set[string]{}}
	if apiserverCount(ctx) == 1 {
		reason := "one apiserver: rolling it is a restart, and clients wait for it"
		w.exempt["roll"], w.exempt["unroll"] = reason, reason
	}
	w.clock.mark("warmup")
	server := dpPod("backend", w.nodes[0].Name, lrHTTPServer, corev1.RestartPolicyAlways)
	server.Spec.HostNetwork = true
	server.Spec.Containers[0].ReadinessProbe = &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}},
		PeriodSeconds: 1,
	}
	dpStartPod(ctx, w.ns, server)
	for i := 0; i < n; i++ {
		svc, err := client.CoreV1().Services(w.ns).Create(ctx, lrService(fmt.Sprintf("svc-%03d", i)), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		w.names = append(w.names, svc.Name)
		w.ips = append(w.ips, svc.Spec.ClusterIP)
		w.uids[svc.Name] = svc.UID
	}
	lrEventuallyAll(ctx, w.ns, "warm", w.nodes[0].Name, append(append([]string{}, w.names...), w.ips...))
	w.old = []*lrProbe{
		lrStartProbe(ctx, w.ns, "dns", w.nodes[0].Name, w.names),
		lrStartProbe(ctx, w.ns, "clusterip", w.nodes[len(w.nodes)-1].Name, w.ips),
		lrStartProbe(ctx, w.ns, "api", w.nodes[0].Name, nil),
	}
	w.clock.steady(ctx, w.old)
	return w
}

// startAfter starts the probes of the renumbered cluster: by name (through the DNS Service's
// new address, once kubelets were reloaded), by the new ClusterIPs, and to the apiserver at the
// kubernetes Service's new address.
func (w *lrWorkload) startAfter(ctx context.Context, newIPs []string) {
	w.after = []*lrProbe{
		lrStartProbe(ctx, w.ns, "dns-new", w.nodes[len(w.nodes)-1].Name, w.names),
		lrStartProbe(ctx, w.ns, "clusterip-new", w.nodes[0].Name, newIPs),
		lrStartProbe(ctx, w.ns, "api-new", w.nodes[len(w.nodes)-1].Name, nil),
	}
}

// waitAPI waits until each running API probe has reached the apiserver since it was called:
// after a roll, the phase lasts until in-cluster clients see an apiserver again (with one,
// its restart; with more, a no-op).
func (w *lrWorkload) waitAPI(ctx context.Context) {
	// the probes log in milliseconds
	since := time.Now().Truncate(time.Millisecond)
	for _, p := range w.running() {
		if !strings.HasPrefix(p.kind, "api") {
			continue
		}
		gomega.Eventually(ctx, func(ctx context.Context) bool {
			for _, r := range p.requests(ctx) {
				if !r.at.Before(since) && r.code == "200" {
					return true
				}
			}
			return false
		}).WithTimeout(3*time.Minute).WithPolling(time.Second).Should(gomega.BeTrue(), "probe %s never reached the apiserver after the roll", p.kind)
	}
}

// running returns the probes that have not been stopped.
func (w *lrWorkload) running() []*lrProbe {
	var out []*lrProbe
	for _, p := range append(append([]*lrProbe{}, w.old...), w.after...) {
		if p.log == "" {
			out = append(out, p)
		}
	}
	return out
}

// waitRounds waits until every running probe has done k more rounds.
func (w *lrWorkload) waitRounds(ctx context.Context, k int) {
	for _, p := range w.running() {
		p.waitRounds(ctx, p.rounds(ctx)+k)
	}
}

// stopOld keeps the old probes' logs and deletes their pods.
func (w *lrWorkload) stopOld(ctx context.Context) {
	for _, p := range w.old {
		p.waitRounds(ctx, p.rounds(ctx)+1)
		p.log = dpLogs(ctx, p.ns, p.pod)
		gomega.Expect(client.CoreV1().Pods(p.ns).Delete(ctx, p.pod, metav1.DeleteOptions{})).To(gomega.Succeed())
	}
}

// expectReachable checks that every target answers from every node.
func (w *lrWorkload) expectReachable(ctx context.Context, targets []string) {
	all, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	for _, node := range all.Items {
		lrEventuallyAll(ctx, w.ns, "end", node.Name, targets)
	}
}

// report lets every running probe finish a round, then prints and checks the probes' counts.
func (w *lrWorkload) report(ctx context.Context, lines []string) {
	w.waitRounds(ctx, 1)
	for _, p := range append(append([]*lrProbe{}, w.old...), w.after...) {
		if strings.HasPrefix(p.kind, "api") {
			p.exempt = w.exempt
		}
		p.excused = w.excused
	}
	lrReport(ctx, w.ns, w.clock, append(append([]*lrProbe{}, w.old...), w.after...), lines)
}
