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
	"net/netip"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// The [Feature:LiveRanges] specs change a running cluster's Service ranges while a probe
// workload in the cluster counts failed requests, phase by phase. They fill the cluster's
// Service range, so they run only on a cluster made for them: kind/live-ranges.sh (make
// test-live-ranges) sets NETFORK_E2E_LIVE_RANGES to the number of Services the probes reach.

const (
	// lrLoadWorkers create Services at once, through the cluster's endpoint.
	lrLoadWorkers = 4
	// lrNewServices is how many Services the load creates in the added range before it stops.
	lrNewServices = 60
	// lrRetry paces a load worker's retries of a refused create.
	lrRetry = 100 * time.Millisecond
	// lrFullRefusals is how many refused creates show the ranges full.
	lrFullRefusals = 20
	// lrLabel marks the Services the spec creates.
	lrLabel = "netfork-live-ranges"
)

// lrServiceCount returns the number of Services the probes reach by name, or skips the spec.
func lrServiceCount() int {
	v := os.Getenv("NETFORK_E2E_LIVE_RANGES")
	if v == "" {
		ginkgo.Skip("NETFORK_E2E_LIVE_RANGES is unset: the [Feature:LiveRanges] specs fill the cluster's Service range and need a cluster made for them (make test-live-ranges)")
	}
	n, err := strconv.Atoi(v)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "NETFORK_E2E_LIVE_RANGES=%q: want a number of Services", v)
	return n
}

// The specs run in this order: expand fills the cluster's own range, the rollback leaves the
// cluster as it was, and the renumber moves it to the range after its own for good.
var _ = ginkgo.Describe("Live Service ranges [Feature:LiveRanges]", ginkgo.Label("live-ranges", "datapath", "KEP-1880"), ginkgo.Serial, ginkgo.Ordered, func() {
	ginkgo.It("expands a full Service range under a create load: every apiserver allocates from the added ServiceCIDR, kube-proxy serves it on every node, its removal waits for its Services", func(ctx context.Context) {
		n := lrServiceCount()
		nodes := dpSchedulableNodes(ctx)
		f := requireIPAddressMode(ctx)
		primary := f.serviceRanges[0]
		if !dpContained(primary) {
			ginkgo.Skip(fmt.Sprintf("the Service range %s is outside 198.18.0.0/15 and fc00::/7; netfork's tests only fill those", primary))
		}
		ns := dpNamespace(ctx)
		clock := &lrClock{}
		clock.mark("warmup")

		ginkgo.By("a backend answering on port 8080")
		server := dpPod("backend", nodes[0].Name, dpHTTPServer, corev1.RestartPolicyAlways)
		server.Spec.Containers[0].ReadinessProbe = &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}},
			PeriodSeconds: 1,
		}
		dpStartPod(ctx, ns, server)

		ginkgo.By(fmt.Sprintf("%d Services the probes reach by name and by ClusterIP", n))
		var names, ips []string
		for i := 0; i < n; i++ {
			svc, err := client.CoreV1().Services(ns).Create(ctx, lrService(fmt.Sprintf("svc-%03d", i)), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			names = append(names, svc.Name)
			ips = append(ips, svc.Spec.ClusterIP)
		}
		ginkgo.By("waiting until every Service answers by name and by ClusterIP from a pod")
		lrEventuallyAll(ctx, ns, "warm", nodes[0].Name, append(append([]string{}, names...), ips...))

		ginkgo.By("probes: every Service by DNS name, every Service by ClusterIP, the apiserver through the kubernetes Service")
		probes := []*lrProbe{
			lrStartProbe(ctx, ns, "dns", nodes[0].Name, names),
			lrStartProbe(ctx, ns, "clusterip", nodes[len(nodes)-1].Name, ips),
			lrStartProbe(ctx, ns, "api", nodes[0].Name, nil),
		}
		clock.steady(ctx, probes)

		clock.mark("fill")
		ginkgo.By("a create load through the cluster's endpoint until the ranges are full")
		load := newLRLoad(ns)
		loadCtx, stopLoad := context.WithCancel(ctx)
		ginkgo.DeferCleanup(stopLoad)
		load.start(loadCtx)
		gomega.Eventually(ctx, load.refused.Load).WithTimeout(5*time.Minute).WithPolling(time.Second).
			Should(gomega.BeNumerically(">=", lrFullRefusals), "the load's creates were never refused: the Service range did not fill (created %d)", load.count())
		filled := load.count()
		ginkgo.By(fmt.Sprintf("the ranges are full: the load created %d Services, then %d creates were refused", filled, load.refused.Load()))

		clock.mark("expand")
		next := netip.PrefixFrom(dpAfter(primary), primary.Bits()).Masked()
		if !dpContained(next) {
			ginkgo.Fail(fmt.Sprintf("the range after %s, %s, is outside 198.18.0.0/15 and fc00::/7", primary, next))
		}
		ginkgo.By("adding ServiceCIDR " + next.String() + ", each apiserver asked directly for a Service meanwhile")
		added := time.Now()
		load.limit.Store(int64(filled + lrNewServices))
		firstAllocs := lrFirstAllocations(ctx, ns, added)
		cidr := createReadyServiceCIDR(ctx, "netfork-live-", next)
		readyAfter := time.Since(added)
		firstAlloc := firstAllocs()
		for _, a := range firstAlloc {
			gomega.Expect(next.Contains(netip.MustParseAddr(a.ip))).To(gomega.BeTrue(), "apiserver %s allocated %s outside the added %s", a.apiserver, a.ip, next)
		}
		load.wait()
		clock.mark("grow")

		gomega.Expect(load.errs()).To(gomega.BeEmpty(), "creates failed for another reason than a full range")
		lost := load.lost(ctx)
		gomega.Expect(lost).To(gomega.BeEmpty(), "Services the load created that do not exist")
		var newIPs []string
		for _, ip := range load.ips() {
			if next.Contains(netip.MustParseAddr(ip)) {
				newIPs = append(newIPs, ip)
			}
		}
		gomega.Expect(newIPs).NotTo(gomega.BeEmpty(), "the load created no Service in %s", next)

		ginkgo.By(fmt.Sprintf("kube-proxy serving the %d new ClusterIPs on every node", len(newIPs)))
		all, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		proxyStart := time.Now()
		for _, node := range all.Items {
			lrEventuallyAll(ctx, ns, "proxy", node.Name, newIPs)
		}
		proxyAfter := time.Since(proxyStart)

		clock.mark("remove")
		ginkgo.By("deleting ServiceCIDR " + next.String() + " while its Services hold addresses")
		gomega.Expect(client.NetworkingV1().ServiceCIDRs().Delete(ctx, cidr.Name, metav1.DeleteOptions{})).To(gomega.Succeed())
		removed := time.Now()
		held := map[string]bool{}
		for _, ip := range newIPs {
			held[ip] = true
		}
		for _, a := range firstAlloc {
			held[a.ip] = true
		}
		// Blocked: the controller says Terminating and names an address a Service holds in it.
		gomega.Eventually(ctx, func(ctx context.Context) (string, error) {
			reason, message, err := lrReadyCondition(ctx, cidr.Name)
			for _, word := range strings.FieldsFunc(message, func(r rune) bool { return r == ' ' || r == ',' || r == ':' || r == '"' }) {
				if reason == networkingv1.ServiceCIDRReasonTerminating && held[word] {
					return "blocked by " + word, err
				}
			}
			return reason + ": " + message, err
		}).WithTimeout(readyTimeout).Should(gomega.HavePrefix("blocked by "), "ServiceCIDR %s is not reported Terminating, blocked by an address in use", cidr.Name)
		blockedAfter := time.Since(removed)
		inNew := 0
		for name, ip := range load.created() {
			if next.Contains(netip.MustParseAddr(ip)) {
				inNew++
				gomega.Expect(client.CoreV1().Services(ns).Delete(ctx, name, metav1.DeleteOptions{})).To(gomega.Succeed())
			}
		}
		for _, a := range firstAlloc {
			gomega.Expect(client.CoreV1().Services(ns).Delete(ctx, a.service, metav1.DeleteOptions{})).To(gomega.Succeed())
		}
		freed := time.Now()
		gomega.Eventually(ctx, func(ctx context.Context) bool {
			_, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, cidr.Name, metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		}).WithTimeout(cidrDeletionTimeout).WithPolling(time.Second).Should(gomega.BeTrue(), "ServiceCIDR %s still exists after its Services were deleted", cidr.Name)
		goneAfter := time.Since(freed)
		// netfork's controller owns ServiceCIDR deletion on the kind path (kube-controller-manager
		// runs without its service-cidr-controller, whose grace is 10 s): 60 s from the delete,
		// less the second the deletion timestamp is truncated to, and some slack.
		gomega.Expect(time.Since(removed)).To(gomega.BeNumerically(">=", 55*time.Second),
			"ServiceCIDR %s went %v after its delete: not netfork's 60 s grace (is kube-controller-manager's service-cidr-controller running?)", cidr.Name, time.Since(removed))

		ginkgo.By("every probed Service present at the end")
		for _, name := range names {
			_, err := client.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}
		clock.mark("end")
		for _, p := range probes {
			p.waitRounds(ctx, p.rounds(ctx)+1)
		}

		report := []string{
			fmt.Sprintf("Services probed: %d; the load created %d before the ranges were full, %d refused creates (retried, %d lost)", n, filled, load.refused.Load(), len(lost)),
			fmt.Sprintf("ServiceCIDR %s Ready %v after its create", next, readyAfter.Round(time.Millisecond)),
		}
		for _, a := range firstAlloc {
			report = append(report, fmt.Sprintf("apiserver %s: first ClusterIP from %s (%s) %v after the create", a.apiserver, next, a.ip, a.after.Round(time.Millisecond)))
		}
		report = append(report,
			fmt.Sprintf("kube-proxy: %d new ClusterIPs answered on all %d nodes %v after the load stopped", len(newIPs), len(all.Items), proxyAfter.Round(time.Millisecond)),
			fmt.Sprintf("removal: reported blocked %v after the delete, %d Services in it deleted %v after it, ServiceCIDR gone %v after that (netfork's grace: 60 s from the delete)",
				blockedAfter.Round(time.Millisecond), inNew+len(firstAlloc), freed.Sub(removed).Round(time.Second), goneAfter.Round(time.Second)))
		lrReport(ctx, ns, clock, probes, report)
	})

	ginkgo.It("rolls back a renumber killed midway, and one stopped before its cut-over: every Service back at its ClusterIPs with its UID, the kubernetes Service too, reachable throughout", lrRollbackSpec)

	ginkgo.It("renumbers a live cluster's Services to another range with kubectl servicecidr: apiservers rolled, a run killed midway and resumed, kubelets reloaded, the grace period served, finish", lrRenumberSpec)
})

// lrService is a ClusterIP Service of the spec, selecting the backend.
func lrService(name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{lrLabel: "true"}},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"netfork-dp": "backend"},
			Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}},
		},
	}
}

// lrClock records when each phase of a spec began.
type lrClock struct {
	names  []string
	starts []time.Time
}

func (c *lrClock) mark(name string) {
	c.names = append(c.names, name)
	c.starts = append(c.starts, time.Now())
	ginkgo.By("phase " + name)
}

// lrSteadyFor is the least the steady phase lasts: its counts are the baseline the later
// phases' are read against, and one round of a few Services takes a second or two.
const lrSteadyFor = 10 * time.Second

// steady marks the steady phase and returns once every probe has done a round in it and it has
// lasted lrSteadyFor.
func (c *lrClock) steady(ctx context.Context, probes []*lrProbe) {
	c.mark("steady")
	start := c.starts[len(c.starts)-1]
	for _, p := range probes {
		p.waitRounds(ctx, p.rounds(ctx)+1)
	}
	for time.Since(start) < lrSteadyFor {
		probes[0].waitRounds(ctx, probes[0].rounds(ctx)+1)
	}
}

// phase names the phase a request started at t belongs to.
func (c *lrClock) phase(t time.Time) string {
	i := sort.Search(len(c.starts), func(i int) bool { return c.starts[i].After(t) })
	if i == 0 {
		return "before"
	}
	return c.names[i-1]
}

// lrProbe is a pod that requests its targets round after round and logs one line per request:
// "<unix ms> <target> <HTTP code>" (000: no answer).
type lrProbe struct {
	kind, ns, pod string
	// log is the pod's log, kept when the pod was stopped.
	log string
	// exempt names the phases whose failures the thresholds do not count, with the reason.
	exempt map[string]string
	// excused holds, per phase, targets whose failures in it are counted apart, not against
	// the thresholds: the Services a killed run left between its steps.
	excused map[string]sets.Set[string]
}

// logs returns the probe's log.
func (p *lrProbe) logs(ctx context.Context) string {
	if p.log != "" {
		return p.log
	}
	return dpLogs(ctx, p.ns, p.pod)
}

// lrProbeScript requests each target in turn with curl, forever. With no targets it requests
// the apiserver's /version through the kubernetes Service, at the address in-cluster clients
// use ($KUBERNETES_SERVICE_HOST, which it logs as the target), verifying its certificate as
// they do: against the service account's CA, with that address as an IP SAN.
func lrProbeScript(targets []string) string {
	request := `curl -sS -o /dev/null -w '%{http_code}' --max-time 5 "http://` + lrShellURLHost + `/"`
	list := strings.Join(targets, " ")
	if len(targets) == 0 {
		request = `curl -sS -o /dev/null -w '%{http_code}' --max-time 5 ` +
			`--cacert /var/run/secrets/kubernetes.io/serviceaccount/ca.crt "https://` + lrShellURLHost + `:$KUBERNETES_SERVICE_PORT/version"`
		list = "$KUBERNETES_SERVICE_HOST"
	}
	return fmt.Sprintf(`echo round; while true; do for t in %s; do s=$(date +%%s%%3N); c=$(%s 2>/dev/null); echo "$s $t ${c:-000}"; done; echo round; sleep 0.2; done`, list, request)
}

// lrShellURLHost is shell that prints $t as a URL's host: an IPv6 address in brackets.
const lrShellURLHost = `$(case $t in (*:*) echo "[$t]";; (*) echo "$t";; esac)`

// lrStartProbe starts a probe pod on node.
func lrStartProbe(ctx context.Context, ns, kind, node string, targets []string) *lrProbe {
	return lrStartProbeOn(ctx, ns, kind, node, targets, false)
}

// lrStartProbeOn starts a probe pod on node, in the node's network namespace when host is
// true: the node has addresses of families its pods may lack.
func lrStartProbeOn(ctx context.Context, ns, kind, node string, targets []string, host bool) *lrProbe {
	pod := dpPod("probe-"+kind, node, lrProbeScript(targets), corev1.RestartPolicyNever)
	pod.Spec.HostNetwork = host
	dpStartPod(ctx, ns, pod)
	return &lrProbe{kind: kind, ns: ns, pod: pod.Name}
}

// rounds is how many rounds the probe has finished.
func (p *lrProbe) rounds(ctx context.Context) int {
	return strings.Count(p.logs(ctx), "round\n") - 1
}

// waitRounds waits until the probe has finished at least n rounds.
func (p *lrProbe) waitRounds(ctx context.Context, n int) {
	gomega.Eventually(ctx, p.rounds).WithTimeout(5*time.Minute).WithPolling(time.Second).
		Should(gomega.BeNumerically(">=", n), "probe %s/%s", p.ns, p.pod)
}

// lrCount is one probe's requests in one phase.
type lrCount struct {
	total, failed int
	// excused are the failed requests to the phase's excused targets, not in failed.
	excused int
	sample  string
	// failures are the failed requests' lines, the first lrFailuresShown of them.
	failures []string
}

// lrFailuresShown is how many failed requests per probe and phase the report lists.
const lrFailuresShown = 40

// lrCounts reads a probe's log and counts its requests by phase.
func lrCounts(ctx context.Context, clock *lrClock, p *lrProbe) map[string]*lrCount {
	out := map[string]*lrCount{}
	for _, r := range p.requests(ctx) {
		phase := clock.phase(r.at)
		c := out[phase]
		if c == nil {
			c = &lrCount{}
			out[phase] = c
		}
		c.total++
		if r.code != "200" && p.excused[phase].Has(r.target) {
			c.excused++
		} else if r.code != "200" {
			c.failed++
			if c.sample == "" {
				c.sample = r.line
			}
			if len(c.failures) < lrFailuresShown {
				c.failures = append(c.failures, r.line)
			}
		}
	}
	return out
}

// lrRequest is one request a probe logged.
type lrRequest struct {
	at                 time.Time
	target, code, line string
}

// requests parses the probe's log: "<unix ms> <target> <HTTP code>" per request.
func (p *lrProbe) requests(ctx context.Context) []lrRequest {
	var out []lrRequest
	for _, line := range strings.Split(p.logs(ctx), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		ms, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		out = append(out, lrRequest{at: time.UnixMilli(ms), target: f[1], code: f[2], line: line})
	}
	return out
}

// lrReport prints the spec's measurements and the probes' counts per phase, and checks the
// thresholds: no failed request by DNS name or to the apiserver, at most 1 in 1,000 by
// ClusterIP, in every phase after the warm-up (the probes start in it).
func lrReport(ctx context.Context, ns string, clock *lrClock, probes []*lrProbe, lines []string) {
	var failures []string
	lines = append(lines, fmt.Sprintf("%-10s %-8s %8s %7s", "probe", "phase", "requests", "failed"))
	for _, p := range probes {
		counts := lrCounts(ctx, clock, p)
		for _, phase := range clock.names {
			c := counts[phase]
			if c == nil {
				c = &lrCount{}
			}
			lines = append(lines, fmt.Sprintf("%-10s %-8s %8d %7d", p.kind, phase, c.total, c.failed))
			if c.excused > 0 {
				lines = append(lines, fmt.Sprintf("  (and %d failed to %v, which a killed run left between steps: not counted)", c.excused, sets.List(p.excused[phase])))
			}
			if phase == "warmup" {
				continue
			}
			if reason, ok := p.exempt[phase]; ok {
				if c.failed > 0 {
					lines = append(lines, fmt.Sprintf("  (not counted: %s)", reason))
				}
				continue
			}
			allowed := 0
			if p.kind == "clusterip" {
				allowed = c.total / 1000
			}
			if c.failed > allowed {
				failures = append(failures, fmt.Sprintf("probe %s, phase %s: %d of %d requests failed (at most %d allowed), e.g. %q", p.kind, phase, c.failed, c.total, allowed, c.sample))
			}
			if c.failed > 0 {
				// the log only: each failed request (unix ms, target, code), to place it among
				// the steps the spec's log stamps the same way
				fmt.Fprintf(ginkgo.GinkgoWriter, "probe %s, phase %s, failed requests:\n  %s\n", p.kind, phase, strings.Join(c.failures, "\n  "))
			}
		}
	}
	text := strings.Join(lines, "\n")
	ginkgo.AddReportEntry("live ranges", text)
	fmt.Fprintln(ginkgo.GinkgoWriter, text)
	gomega.Expect(failures).To(gomega.BeEmpty(), "probe thresholds in namespace %s", ns)
}

// lrEventuallyAll runs pods on node (tolerating every taint, so control planes too) that
// request every target until each answers 200 in one pod's run; a run ends at its first
// target that does not answer.
func lrEventuallyAll(ctx context.Context, ns, name, node string, targets []string) {
	lrEventuallyAllOn(ctx, ns, name, node, targets, false)
}

// lrEventuallyAllOn is lrEventuallyAll from the node's network namespace when host is true.
func lrEventuallyAllOn(ctx context.Context, ns, name, node string, targets []string, host bool) {
	script := fmt.Sprintf(`for t in %s; do c=$(curl -sS -o /dev/null -w '%%{http_code}' --max-time 3 "http://%s/" 2>/dev/null); [ "$c" = 200 ] || { echo "$t ${c:-000}"; exit 0; }; done; echo done`, strings.Join(targets, " "), lrShellURLHost)
	lrEventuallyOn(ctx, ns, name, node, script, "done\n", host, "targets not answering from node "+node)
}

// lrEventuallyOn runs pods named name-<node>-<attempt> on node (tolerating every taint; in the
// node's network namespace when host is true) that run script, until one logs want.
func lrEventuallyOn(ctx context.Context, ns, name, node, script, want string, host bool, what string) {
	attempt := 0
	gomega.Eventually(ctx, func(ctx context.Context) string {
		attempt++
		pod := dpPod(fmt.Sprintf("%s-%s-%d", name, lrShort(node), attempt), node, script, corev1.RestartPolicyNever)
		pod.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		pod.Spec.HostNetwork = host
		_, log := dpRunPod(ctx, ns, pod)
		return log
	}).WithTimeout(3*time.Minute).WithPolling(time.Second).Should(gomega.Equal(want), what)
}

// lrShort makes a node name usable in a pod name.
func lrShort(node string) string {
	if i := strings.LastIndex(node, "-"); i >= 0 {
		return node[i+1:]
	}
	return node
}

// lrReadyCondition returns the reason and message of a ServiceCIDR's Ready condition.
func lrReadyCondition(ctx context.Context, name string) (string, string, error) {
	c, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", "", err
	}
	for _, cond := range c.Status.Conditions {
		if cond.Type == networkingv1.ServiceCIDRConditionReady {
			return cond.Reason, cond.Message, nil
		}
	}
	return "", "", nil
}

// lrLoad creates Services lrService("load-NNNN") with lrLoadWorkers workers. A worker retries
// a refused create until it succeeds (an AlreadyExists answer to a retry counts as success: the
// earlier attempt had created it), so no Service it started is given up; it stops taking new
// names once limit Services exist or its context ends.
type lrLoad struct {
	ns      string
	next    atomic.Int64
	limit   atomic.Int64
	refused atomic.Int64
	wg      sync.WaitGroup

	mu    sync.Mutex
	made  map[string]string
	other []string
}

func newLRLoad(ns string) *lrLoad {
	l := &lrLoad{ns: ns, made: map[string]string{}}
	l.limit.Store(1 << 30)
	return l
}

func (l *lrLoad) start(ctx context.Context) {
	for w := 0; w < lrLoadWorkers; w++ {
		l.wg.Add(1)
		go func() {
			defer ginkgo.GinkgoRecover()
			defer l.wg.Done()
			for ctx.Err() == nil && int64(l.count()) < l.limit.Load() {
				l.create(ctx, fmt.Sprintf("load-%04d", l.next.Add(1)))
			}
		}()
	}
}

// create creates one Service, retrying until it exists or ctx ends.
func (l *lrLoad) create(ctx context.Context, name string) {
	for ctx.Err() == nil {
		svc, err := client.CoreV1().Services(l.ns).Create(ctx, lrService(name), metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			svc, err = client.CoreV1().Services(l.ns).Get(ctx, name, metav1.GetOptions{})
		}
		if err == nil {
			l.mu.Lock()
			l.made[name] = svc.Spec.ClusterIP
			l.mu.Unlock()
			return
		}
		if strings.Contains(err.Error(), "range is full") {
			l.refused.Add(1)
		} else if ctx.Err() == nil {
			l.mu.Lock()
			l.other = append(l.other, name+": "+err.Error())
			l.mu.Unlock()
		}
		select {
		case <-ctx.Done():
		case <-time.After(lrRetry):
		}
	}
}

func (l *lrLoad) wait() { l.wg.Wait() }

func (l *lrLoad) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.made)
}

func (l *lrLoad) created() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]string, len(l.made))
	for k, v := range l.made {
		out[k] = v
	}
	return out
}

func (l *lrLoad) ips() []string {
	var out []string
	for _, ip := range l.created() {
		out = append(out, ip)
	}
	sort.Strings(out)
	return out
}

func (l *lrLoad) errs() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.other...)
}

// lost lists the Services the load created that do not exist with the ClusterIP it was given,
// and any load Service it never saw created (a create answered with an error that took effect).
func (l *lrLoad) lost(ctx context.Context) []string {
	list, err := client.CoreV1().Services(l.ns).List(ctx, metav1.ListOptions{LabelSelector: lrLabel + "=true"})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	have := map[string]string{}
	for _, s := range list.Items {
		if strings.HasPrefix(s.Name, "load-") {
			have[s.Name] = s.Spec.ClusterIP
		}
	}
	var out []string
	made := l.created()
	for name, ip := range made {
		if have[name] != ip {
			out = append(out, fmt.Sprintf("%s (%s, now %q)", name, ip, have[name]))
		}
	}
	for name := range have {
		if _, ok := made[name]; !ok {
			out = append(out, name+" (exists, never reported created)")
		}
	}
	sort.Strings(out)
	return out
}

// lrAllocation is an apiserver's first Service created once a range was added.
type lrAllocation struct {
	apiserver, service, ip string
	after                  time.Duration
}

// lrFirstAllocations starts, for each apiserver asked directly (each control-plane node's
// address), creates of a Service retried while they are refused as full, and returns a
// function that waits for them and reports when each first succeeded, counted from since.
// With the old ranges full, an apiserver's first create that succeeds allocates from the
// added range.
func lrFirstAllocations(ctx context.Context, ns string, since time.Time) func() []lrAllocation {
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "node-role.kubernetes.io/control-plane"})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(nodes.Items).NotTo(gomega.BeEmpty(), "no control-plane node to reach its apiserver")
	out := make([]lrAllocation, len(nodes.Items))
	var wg sync.WaitGroup
	for i, node := range nodes.Items {
		addr := dpInternalIP(node, false)
		gomega.Expect(addr).NotTo(gomega.BeEmpty(), "node %s has no IPv4 InternalIP", node.Name)
		cfg := rest.CopyConfig(restConfig)
		cfg.Host = "https://" + dpURLHost(addr) + ":6443"
		// the serving certificate names kubernetes (kubeadm's SANs), whichever address is asked
		cfg.ServerName = "kubernetes"
		direct, err := kubernetes.NewForConfig(cfg)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		wg.Add(1)
		go func() {
			defer ginkgo.GinkgoRecover()
			defer wg.Done()
			name := "first-" + lrShort(node.Name)
			for ctx.Err() == nil {
				svc, err := direct.CoreV1().Services(ns).Create(ctx, lrService(name), metav1.CreateOptions{})
				if apierrors.IsAlreadyExists(err) {
					svc, err = direct.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
				}
				if err == nil {
					out[i] = lrAllocation{apiserver: node.Name + " (" + addr + ")", service: svc.Name, ip: svc.Spec.ClusterIP, after: time.Since(since)}
					return
				}
				if !strings.Contains(err.Error(), "range is full") {
					ginkgo.Fail(fmt.Sprintf("create through %s: %v", addr, err))
				}
				select {
				case <-ctx.Done():
				case <-time.After(lrRetry):
				}
			}
		}()
	}
	return func() []lrAllocation {
		wg.Wait()
		for _, a := range out {
			gomega.Expect(a.ip).NotTo(gomega.BeEmpty(), "an apiserver never allocated")
		}
		return out
	}
}
