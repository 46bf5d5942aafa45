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

package controlplane

import (
	"context"
	"fmt"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/component-base/featuregate"

	"github.com/netfork/netfork/cmd/kube-apiserver/app"
	"github.com/netfork/netfork/pkg/controlplane/reconcilers"
	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/test/integration/framework"
)

// The in-process netfork apiservers reconcile every reconcileInterval with
// upstream leases of leaseTTL (production: 10 s and 15 s, which no flag sets).
// Upstream's apiserver keeps its production 10 s and 15 s.
const (
	reconcileInterval = 2 * time.Second
	leaseTTL          = 5 * time.Second
	// shapeDeadline is "within 2 reconcile intervals", plus a second for a
	// loaded 2-core machine to schedule the reconcile and the test's poll.
	shapeDeadline = 2*reconcileInterval + time.Second
	// shutdownDelay is the graceful apiserver's --shutdown-delay-duration,
	// how long it serves as terminating before it removes itself.
	shutdownDelay = 6 * time.Second
	// passesTimeout bounds a wait for reconcile passes, upstream's every 10 s among them.
	passesTimeout = 2 * time.Minute
)

// Advertised addresses: Endpoints may not hold loopback addresses, so the
// apiservers serve on 127.0.0.1 and advertise addresses from the benchmarking
// range and a ULA /64 that is not the host's, as local-up does. Nothing
// sends traffic to them.
func advertised(i int) (string, string) {
	return fmt.Sprintf("198.18.0.%d", i), fmt.Sprintf("fd4e:6574:666b:1::%d", i)
}

const (
	serviceIPv4 = "10.96.0.1"
	serviceIPv6 = "fd00:10:96::1"
)

// kubernetesService is what a client sees of the kubernetes Service.
type kubernetesService struct {
	policy     corev1.IPFamilyPolicy
	clusterIPs []string
	// slices maps each kubernetes EndpointSlice by name to its address type
	// and its endpoints as address -> "ready" or "terminating".
	slices map[string]sliceView
	// ready and notReady are the Endpoints addresses.
	ready, notReady []string
	// versions are the resourceVersions of every object, to spot any write.
	versions map[string]string
	// slicesListed is the resourceVersion of the EndpointSlice list: no
	// slice missing from it existed then.
	slicesListed string
}

type sliceView struct {
	addressType discoveryv1.AddressType
	endpoints   map[string]string
}

func observe(ctx context.Context, client kubernetes.Interface) (kubernetesService, error) {
	v := kubernetesService{slices: map[string]sliceView{}, versions: map[string]string{}}
	svc, err := client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return v, err
	}
	if svc.Spec.IPFamilyPolicy != nil {
		v.policy = *svc.Spec.IPFamilyPolicy
	}
	v.clusterIPs = svc.Spec.ClusterIPs
	v.versions["service"] = svc.ResourceVersion
	slices, err := client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelServiceName + "=kubernetes",
	})
	if err != nil {
		return v, err
	}
	v.slicesListed = slices.ResourceVersion
	for _, s := range slices.Items {
		view := sliceView{addressType: s.AddressType, endpoints: map[string]string{}}
		for _, ep := range s.Endpoints {
			c := ep.Conditions
			state := fmt.Sprintf("ready=%v serving=%v terminating=%v", deref(c.Ready), deref(c.Serving), deref(c.Terminating))
			switch {
			case c.Ready != nil && *c.Ready && c.Terminating == nil:
				state = "ready"
			case c.Ready != nil && !*c.Ready && deref(c.Serving) == "true" && deref(c.Terminating) == "true":
				state = "terminating"
			}
			for _, a := range ep.Addresses {
				view.endpoints[a] = state
			}
		}
		v.slices[s.Name] = view
		v.versions["slice/"+s.Name] = s.ResourceVersion
	}
	e, err := client.CoreV1().Endpoints(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return v, err
	default:
		v.versions["endpoints"] = e.ResourceVersion
		for _, s := range e.Subsets {
			for _, a := range s.Addresses {
				v.ready = append(v.ready, a.IP)
			}
			for _, a := range s.NotReadyAddresses {
				v.notReady = append(v.notReady, a.IP)
			}
		}
	}
	sort.Strings(v.ready)
	sort.Strings(v.notReady)
	return v, nil
}

func deref(b *bool) string {
	if b == nil {
		return "nil"
	}
	return fmt.Sprint(*b)
}

// dualStack tells whether v is the dual-stack shape over exactly the apiservers numbered ids.
func (v kubernetesService) dualStack(ids ...int) error {
	if v.policy != corev1.IPFamilyPolicyRequireDualStack || !reflect.DeepEqual(v.clusterIPs, []string{serviceIPv4, serviceIPv6}) {
		return fmt.Errorf("Service is %s %v, want RequireDualStack [%s %s]", v.policy, v.clusterIPs, serviceIPv4, serviceIPv6)
	}
	want4, want6 := map[string]string{}, map[string]string{}
	var ready []string
	for _, i := range ids {
		ip4, ip6 := advertised(i)
		want4[ip4], want6[ip6] = "ready", "ready"
		ready = append(ready, ip4)
	}
	sort.Strings(ready)
	want := map[string]sliceView{
		"kubernetes":      {discoveryv1.AddressTypeIPv4, want4},
		"kubernetes-ipv6": {discoveryv1.AddressTypeIPv6, want6},
	}
	if !reflect.DeepEqual(v.slices, want) {
		return fmt.Errorf("EndpointSlices %+v, want %+v", v.slices, want)
	}
	if !reflect.DeepEqual(v.ready, ready) || len(v.notReady) != 0 {
		return fmt.Errorf("Endpoints ready %v not ready %v, want ready %v (primary family only)", v.ready, v.notReady, ready)
	}
	return nil
}

// singleStack tells whether v is upstream's single-stack shape over exactly the IPv4 addresses ips.
func (v kubernetesService) singleStack(ips ...string) error {
	if v.policy != corev1.IPFamilyPolicySingleStack || !reflect.DeepEqual(v.clusterIPs, []string{serviceIPv4}) {
		return fmt.Errorf("Service is %s %v, want SingleStack [%s]", v.policy, v.clusterIPs, serviceIPv4)
	}
	want4 := map[string]string{}
	for _, ip := range ips {
		want4[ip] = "ready"
	}
	sort.Strings(ips)
	if want := map[string]sliceView{"kubernetes": {discoveryv1.AddressTypeIPv4, want4}}; !reflect.DeepEqual(v.slices, want) {
		return fmt.Errorf("EndpointSlices %+v, want %+v", v.slices, want)
	}
	if !reflect.DeepEqual(v.ready, ips) || len(v.notReady) != 0 {
		return fmt.Errorf("Endpoints ready %v not ready %v, want ready %v", v.ready, v.notReady, ips)
	}
	return nil
}

// waitShape looks at what client sees until check passes, failing after
// within. It looks again after each write to the kubernetes Service's objects
// in etcd, the only thing that changes what it sees, so it never sleeps.
func waitShape(t *testing.T, c cluster, what string, within time.Duration, check func(kubernetesService) error) kubernetesService {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	writes := c.watch(ctx, c.revision(t)+1)
	start := time.Now()
	var last kubernetesService
	var lastErr error
	for {
		last, lastErr = observe(context.Background(), c.client)
		if lastErr == nil {
			if lastErr = check(last); lastErr == nil {
				t.Logf("%s after %s", what, time.Since(start).Round(10*time.Millisecond))
				return last
			}
		}
		if !nextObjectWrite(writes, c.prefix) {
			t.Fatalf("not %s within %s: %v", what, within, lastErr)
		}
	}
}

// nextObjectWrite waits for the next write to one of the kubernetes Service's
// objects; false once the watch ended.
func nextObjectWrite(writes clientv3.WatchChan, prefix string) bool {
	for resp := range writes {
		for _, ev := range resp.Events {
			if _, ok := objectOf(prefix, string(ev.Kv.Key)); ok {
				return true
			}
		}
	}
	return false
}

// objectOf names the kubernetes Service's object stored at key as observe's
// versions do ("service", "endpoints", "slice/NAME"); false for other keys.
func objectOf(prefix, key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, prefix+"/")
	if !ok {
		return "", false
	}
	switch rest {
	case "services/specs/default/kubernetes":
		return "service", true
	case "services/endpoints/default/kubernetes":
		return "endpoints", true
	}
	name, ok := strings.CutPrefix(rest, "endpointslices/default/")
	if ok && (name == "kubernetes" || strings.HasPrefix(name, "kubernetes-")) {
		return "slice/" + name, true
	}
	return "", false
}

// legacyLeaseKey is where the apiserver advertising ip renews upstream's
// lease, first thing in each of its reconcile passes, in netfork as in upstream.
func (c cluster) legacyLeaseKey(ip string) string {
	return path.Join(c.prefix, reconcilers.LegacyLeasesPrefix, ip)
}

// whilePasses follows, from v's observation on, the writes to the kubernetes
// Service's objects that v does not hold yet, calling onWrite with each, until
// every lease key of renewals was renewed that many times after the call: n+1
// renewals of an apiserver's lease mean n of its reconcile passes ran whole
// (a pass writes its endpoints after renewing, and passes do not overlap).
// It fails the test after timeout.
func whilePasses(t *testing.T, c cluster, v kubernetesService, renewals map[string]int, timeout time.Duration, onWrite func(object string, ev *clientv3.Event)) {
	t.Helper()
	now := c.revision(t)
	from := now
	for _, rv := range v.versions {
		from = min(from, revision(t, rv))
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	writes := c.watch(ctx, from+1)
	seen := map[string]int{}
	done := func() bool {
		for key, n := range renewals {
			if seen[key] < n {
				return false
			}
		}
		return true
	}
	for !done() {
		resp, ok := <-writes
		if !ok {
			t.Fatalf("leases renewed %v times within %s, want %v", seen, timeout, renewals)
		}
		for _, ev := range resp.Events {
			key := string(ev.Kv.Key)
			if _, counted := renewals[key]; counted && ev.Type == clientv3.EventTypePut && ev.Kv.ModRevision > now {
				seen[key]++
			}
			object, ok := objectOf(c.prefix, key)
			if !ok {
				continue
			}
			seenBy, held := v.versions[object]
			if !held && strings.HasPrefix(object, "slice/") {
				seenBy = v.slicesListed
			}
			if seenBy != "" && ev.Kv.ModRevision <= revision(t, seenBy) {
				continue // v saw it, or saw it gone
			}
			onWrite(object, ev)
		}
	}
	t.Logf("leases renewed %v times", seen)
}

// cluster is what the test reads: the kubernetes Service through an
// apiserver, and its objects and the leases in etcd under prefix.
type cluster struct {
	client kubernetes.Interface
	etcd   *clientv3.Client
	prefix string
}

// watch follows every write under the cluster's prefix from revision rev on, until ctx ends.
func (c cluster) watch(ctx context.Context, rev int64) clientv3.WatchChan {
	return c.etcd.Watch(ctx, c.prefix+"/", clientv3.WithPrefix(), clientv3.WithRev(rev))
}

// revision is etcd's revision now.
func (c cluster) revision(t *testing.T) int64 {
	t.Helper()
	resp, err := c.etcd.Get(context.Background(), c.prefix)
	if err != nil {
		t.Fatalf("reading etcd's revision: %v", err)
	}
	return resp.Header.Revision
}

func ipv4s(ids ...int) []string {
	var out []string
	for _, i := range ids {
		ip, _ := advertised(i)
		out = append(out, ip)
	}
	return out
}

// startDualStack starts netfork apiserver number i with the gate on, the
// lease reconciler, both families advertised, and short intervals.
func startDualStack(t *testing.T, prefix string, i int, flags ...string) *framework.APIServer {
	ip4, ip6 := advertised(i)
	return framework.StartAPIServer(t,
		framework.WithEtcdPrefix(prefix),
		framework.WithFeatureGates(map[featuregate.Feature]bool{features.DualStackAPIServer: true}),
		framework.WithConfig(func(c *app.Config) {
			c.KubeAPIs.EndpointReconcilerConfig.Interval = reconcileInterval
			c.KubeAPIs.MasterEndpointReconcileTTL = leaseTTL
		}),
		framework.WithFlags(append([]string{
			"--endpoint-reconciler-type=lease",
			"--advertise-address=" + ip4 + "," + ip6,
		}, flags...)...))
}

// TestDualStackLeaseReconciler runs KEP-2438's skew scenarios on one etcd:
// three dual-stack netfork apiservers make the kubernetes Service dual-stack;
// a live apiserver without an address lease (a stale upstream lease, then
// upstream's real binary at the pinned release) makes it single-stack exactly as upstream
// writes it, with no write at all while both kinds run; once that lease is
// gone it is dual-stack again. Last, a graceful shutdown hands off as
// KEP-1669 asks.
func TestDualStackLeaseReconciler(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	servers := []*framework.APIServer{
		startDualStack(t, prefix, 1),
		startDualStack(t, prefix, 2),
		startDualStack(t, prefix, 3, fmt.Sprintf("--shutdown-delay-duration=%s", shutdownDelay)),
	}
	c := cluster{client: servers[0].Client, etcd: etcdClient(t), prefix: prefix}

	if !t.Run("three dual-stack apiservers", func(t *testing.T) {
		waitShape(t, c, "dual-stack over the three apiservers", shapeDeadline,
			func(v kubernetesService) error { return v.dualStack(1, 2, 3) })
		checkLeaseKeys(ctx, t, prefix, 3)
	}) {
		return
	}

	if !t.Run("a stale upstream lease, then its expiry", func(t *testing.T) {
		const stale = "198.18.0.99"
		const staleTTL = 6 // seconds
		etcd := etcdClient(t)
		lease, err := etcd.Grant(ctx, staleTTL)
		if err != nil {
			t.Fatal(err)
		}
		// what an upstream apiserver that died left: its lease, in upstream's format
		value := fmt.Sprintf(`{"kind":"Endpoints","apiVersion":"v1","subsets":[{"addresses":[{"ip":%q}]}]}`, stale)
		if _, err := etcd.Put(ctx, path.Join(prefix, reconcilers.LegacyLeasesPrefix, stale), value, clientv3.WithLease(lease.ID)); err != nil {
			t.Fatal(err)
		}
		waitShape(t, c, "single-stack with the stale lease", shapeDeadline,
			func(v kubernetesService) error { return v.singleStack(append(ipv4s(1, 2, 3), stale)...) })
		waitShape(t, c, "dual-stack after the stale lease expired", staleTTL*time.Second+shapeDeadline,
			func(v kubernetesService) error { return v.dualStack(1, 2, 3) })
	}) {
		return
	}

	if !t.Run("an upstream apiserver joins and leaves", func(t *testing.T) {
		const upstreamIP = "198.18.0.9"
		upstream := framework.StartUpstreamAPIServer(t, framework.WithEtcdPrefix(prefix),
			framework.WithFlags("--endpoint-reconciler-type=lease", "--advertise-address="+upstreamIP))
		settled := waitShape(t, c, "single-stack with upstream's apiserver", shapeDeadline,
			func(v kubernetesService) error { return v.singleStack(append(ipv4s(1, 2, 3), upstreamIP)...) })

		// no flap: nothing is written while each netfork apiserver makes 10
		// reconcile passes and upstream's makes 2 of its own
		renewals := map[string]int{c.legacyLeaseKey(upstreamIP): 2 + 1}
		for _, ip := range ipv4s(1, 2, 3) {
			renewals[c.legacyLeaseKey(ip)] = 10 + 1
		}
		whilePasses(t, c, settled, renewals, passesTimeout, func(object string, ev *clientv3.Event) {
			t.Fatalf("%s rewritten (%s at revision %d) while both kinds run; observed %v", object, ev.Type, ev.Kv.ModRevision, settled.versions)
		})
		v, err := observe(ctx, c.client)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.singleStack(append(ipv4s(1, 2, 3), upstreamIP)...); err != nil || !reflect.DeepEqual(v.versions, settled.versions) {
			t.Fatalf("flapped while both kinds run: %v; resourceVersions %v, were %v", err, v.versions, settled.versions)
		}

		upstream.Stop()
		waitShape(t, c, "dual-stack after upstream's apiserver stopped", shapeDeadline,
			func(v kubernetesService) error { return v.dualStack(1, 2, 3) })
	}) {
		return
	}

	t.Run("graceful shutdown hands off", func(t *testing.T) {
		leaving := servers[2]
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			leaving.Stop()
		}()
		ip4, ip6 := advertised(3)
		waitShape(t, c, "terminating while it shuts down", shapeDeadline, func(v kubernetesService) error {
			if v.slices["kubernetes"].endpoints[ip4] != "terminating" || v.slices["kubernetes-ipv6"].endpoints[ip6] != "terminating" {
				return fmt.Errorf("slices %+v, want %s and %s terminating", v.slices, ip4, ip6)
			}
			if !reflect.DeepEqual(v.notReady, []string{ip4}) {
				return fmt.Errorf("Endpoints not ready %v, want [%s]", v.notReady, ip4)
			}
			return nil
		})
		// it still serves while it is terminating
		if _, err := leaving.Client.Discovery().ServerVersion(); err != nil {
			t.Errorf("the terminating apiserver does not serve: %v", err)
		}
		removed := waitShape(t, c, "removed once it stops serving", shutdownDelay+shapeDeadline,
			func(v kubernetesService) error { return v.dualStack(1, 2) })
		<-stopped
		// its peers never put it back: no object they write during 3 of their passes holds its addresses
		renewals := map[string]int{}
		for _, ip := range ipv4s(1, 2) {
			renewals[c.legacyLeaseKey(ip)] = 3 + 1
		}
		whilePasses(t, c, removed, renewals, passesTimeout, func(object string, ev *clientv3.Event) {
			if held := addressesIn(t, ev); slices.Contains(held, ip4) || slices.Contains(held, ip6) {
				t.Fatalf("after the apiserver left, %s was written holding its addresses: %v", object, held)
			}
		})
		v, err := observe(ctx, c.client)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.dualStack(1, 2); err != nil {
			t.Fatalf("after the apiserver left: %v", err)
		}
	})
}

// addressesIn are the addresses an EndpointSlice or Endpoints written in ev
// holds; none for a deletion or another kind of object.
func addressesIn(t *testing.T, ev *clientv3.Event) []string {
	t.Helper()
	if ev.Type != clientv3.EventTypePut {
		return nil
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(ev.Kv.Value, nil, nil)
	if err != nil {
		t.Fatalf("decoding %s: %v", ev.Kv.Key, err)
	}
	var out []string
	switch o := obj.(type) {
	case *discoveryv1.EndpointSlice:
		for _, ep := range o.Endpoints {
			out = append(out, ep.Addresses...)
		}
	case *corev1.Endpoints:
		for _, sub := range o.Subsets {
			for _, a := range append(sub.Addresses, sub.NotReadyAddresses...) {
				out = append(out, a.IP)
			}
		}
	}
	return out
}

// checkLeaseKeys reads both kinds of lease from etcd: upstream's key and
// format for the primary address, netfork's key holding both addresses.
func checkLeaseKeys(ctx context.Context, t *testing.T, prefix string, n int) {
	t.Helper()
	etcd := etcdClient(t)
	for i := 1; i <= n; i++ {
		ip4, ip6 := advertised(i)
		for key, want := range map[string][]string{
			path.Join(prefix, reconcilers.LegacyLeasesPrefix, ip4):  {ip4},
			path.Join(prefix, reconcilers.AddressLeasesPrefix, ip4): {ip4, ip6},
		} {
			resp, err := etcd.Get(ctx, key)
			if err != nil || len(resp.Kvs) != 1 {
				t.Fatalf("reading %s: %v (%d keys)", key, err, len(resp.Kvs))
			}
			if resp.Kvs[0].Lease == 0 {
				t.Errorf("%s has no etcd lease: it would never expire", key)
			}
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(resp.Kvs[0].Value, nil, nil)
			if err != nil {
				t.Fatalf("decoding %s: %v", key, err)
			}
			e, ok := obj.(*corev1.Endpoints)
			if !ok || len(e.Subsets) != 1 {
				t.Fatalf("%s holds %T %+v, want an Endpoints with one subset", key, obj, obj)
			}
			var got []string
			for _, a := range e.Subsets[0].Addresses {
				got = append(got, a.IP)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s holds addresses %v, want %v", key, got, want)
			}
		}
	}
}
