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

package renumber

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Options configure a Runner.
type Options struct {
	// To is the target range; empty continues the recorded renumber.
	To Ranges
	// IncludeLoadBalancers moves type LoadBalancer Services too.
	IncludeLoadBalancers bool
	// StopBeforeCutOver ends Renumber once every Service, the `kubernetes`
	// Service too, is at its new addresses, before the cut-over: up to there
	// Rollback undoes it all, and a later Renumber cuts over.
	StopBeforeCutOver bool
	// Force lets Finish remove the bridges while old pods still run.
	Force bool
	// Log receives one line per change.
	Log io.Writer
	// AfterStep, if set, is called after each change; an error stops the run
	// there, as a kill would (tests use it).
	AfterStep func(step string) error
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Config is the connection client was built from. The plan checks that
	// the certificate the apiserver serves on it names the `kubernetes`
	// Service's address in the target; nil skips the check, with a note.
	Config *rest.Config
	// KubernetesTimeout bounds each wait for the apiservers to recreate the
	// `kubernetes` Service; defaultKubernetesTimeout when zero.
	KubernetesTimeout time.Duration
	// KubeProxySyncPeriod is kube-proxy's minimum sync period: the renumber
	// and the rollback move Services in windows it sets, so that kube-proxy
	// never syncs between freeing an old address and taking it again; see
	// window. defaultKubeProxySyncPeriod when zero; no windows and no pause
	// when negative.
	KubeProxySyncPeriod time.Duration
	// Retries is how often Renumber, Rollback and Finish continue from the
	// record after a transient error (see Transient); defaultRetries when
	// zero, none when negative.
	Retries int
}

// Runner plans, runs, finishes and rolls back a renumber.
type Runner struct {
	client kubernetes.Interface
	opts   Options
	store  store
	// notes are what prepare checked beyond the refusals, or could not, for the plan.
	notes []string
	// sleep pauses; tests replace it.
	sleep func(context.Context, time.Duration) error
	// win is the open window of Services moved between two kube-proxy syncs.
	win window
	// lastChange is when this run last changed the cluster, from which a
	// window's pause is counted.
	lastChange time.Time
	// act follows the changes anyone makes to Services and EndpointSlices
	// while a renumber or rollback runs with windows; nil otherwise.
	act *activity
	// follow starts act and returns its stop; tests on a fake clock replace it.
	follow func(context.Context) (stop func())
}

// New returns a Runner acting through client.
func New(client kubernetes.Interface, opts Options) *Runner {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.KubernetesTimeout <= 0 {
		opts.KubernetesTimeout = defaultKubernetesTimeout
	}
	if opts.KubeProxySyncPeriod == 0 {
		opts.KubeProxySyncPeriod = defaultKubeProxySyncPeriod
	}
	if opts.Retries == 0 {
		opts.Retries = defaultRetries
	}
	r := &Runner{client: client, opts: opts, store: store{client: client}, sleep: sleep}
	r.follow = r.followActivity
	return r
}

// step reports a change made and lets a test stop the run after it.
func (r *Runner) step(format string, args ...any) error {
	r.lastChange = r.opts.Now()
	return Step(r.opts.Log, r.opts.AfterStep, format, args...)
}

// Step writes one line for a change a run made to log and calls after, if
// set, with it: the plugin's commands report every change the same way, and
// a test stops a run there as a kill would.
func Step(log io.Writer, after func(step string) error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintln(log, msg)
	if after != nil {
		return after(msg)
	}
	return nil
}

// prepare reads the record and the cluster and refuses bad input; the State
// it returns is the recorded one or a new one not yet saved.
func (r *Runner) prepare(ctx context.Context) (*cluster, *State, error) {
	st, err := r.store.load(ctx)
	if err != nil {
		return nil, nil, err
	}
	c, err := readCluster(ctx, r.client)
	if err != nil {
		return nil, nil, err
	}
	to := r.opts.To
	if len(to) == 0 {
		if st == nil || st.Phase == PhaseFinished {
			return nil, nil, errors.New("--to: required (no renumber in progress to continue)")
		}
		if to, err = ParseRanges(strings.Join(st.To, ",")); err != nil {
			return nil, nil, fmt.Errorf("recorded target: %w", err)
		}
	}
	from, err := sourceRanges(c, st)
	if err != nil {
		return nil, nil, err
	}
	if err := refuse(c, st, from, to, r.opts.IncludeLoadBalancers, r.opts.Now()); err != nil {
		return nil, nil, err
	}
	if st == nil || st.Phase == PhaseFinished {
		st = &State{From: from.Strings(), To: to.Strings(), ClusterDomain: c.clusterDomain()}
	}
	if err := refuseRecordSize(c, st, r.opts.IncludeLoadBalancers); err != nil {
		return nil, nil, err
	}
	if r.notes, err = r.checkCertificate(ctx, kubernetesAhead(c, st, to), to); err != nil {
		return nil, nil, err
	}
	return c, st, nil
}

// maxRecord is the most each of the record's ConfigMaps may take: a ConfigMap
// holds at most 1 MiB, less room for its metadata.
const maxRecord = 1000 * 1024

// refuseRecordSize refuses a renumber whose record would not fit its
// ConfigMaps: the header, or a chunk of Services whose entries are
// uncommonly large (many field managers).
func refuseRecordSize(c *cluster, st *State, includeLB bool) error {
	_, fresh, err := buildPlan(c, st, includeLB)
	if err != nil {
		return err
	}
	all := *st
	all.Services = append(append([]ServiceRecord(nil), st.Services...), fresh...)
	header, chunks, err := encodeRecord(&all)
	if err != nil {
		return err
	}
	if len(header) > maxRecord {
		return fmt.Errorf("the record would take %d bytes, more than ConfigMap %s/%s can hold (%d)", len(header), StateNamespace, StateName, maxRecord)
	}
	for i, data := range chunks {
		if len(data) > maxRecord {
			first := all.Services[i*chunkSize]
			return fmt.Errorf("the record of %d Services from %s would take %d bytes, more than a ConfigMap can hold (%d)", min(chunkSize, len(all.Services)-i*chunkSize), first.key(), len(data), maxRecord)
		}
	}
	return nil
}

// Plan is what Renumber would do now; it changes nothing.
func (r *Runner) Plan(ctx context.Context) (*Plan, error) {
	c, st, err := r.prepare(ctx)
	if err != nil {
		return nil, err
	}
	pl, _, err := buildPlan(c, st, r.opts.IncludeLoadBalancers)
	if pl != nil {
		pl.Notes = r.notes
	}
	return pl, err
}

// Renumber runs the renumber, or continues the recorded one, up to the grace
// period, and returns the plan it ran. After a transient error it continues
// from the record (see resume).
func (r *Runner) Renumber(ctx context.Context) (pl *Plan, err error) {
	err = r.resume(ctx, "renumber", func() (err error) {
		pl, err = r.renumber(ctx)
		return err
	})
	return pl, err
}

func (r *Runner) renumber(ctx context.Context) (*Plan, error) {
	c, st, err := r.prepare(ctx)
	if err != nil {
		return nil, err
	}
	if r.pacing() {
		defer r.follow(ctx)()
	}
	if _, _, err := buildPlan(c, st, r.opts.IncludeLoadBalancers); err != nil {
		return nil, err
	}
	if st.Phase == "" {
		st.Phase = PhaseMoving
		if err := r.store.save(ctx, st); err != nil {
			return nil, err
		}
		if err := r.step("recorded the renumber %s -> %s in ConfigMap %s/%s", strings.Join(st.From, ","), strings.Join(st.To, ","), StateNamespace, StateName); err != nil {
			return nil, err
		}
	}
	if st.Phase == PhaseMoving {
		if err := r.ensureTarget(ctx, st); err != nil {
			return nil, err
		}
		if err := r.moveAll(ctx, st); err != nil {
			return nil, err
		}
		if err := r.updateConfigs(ctx, st); err != nil {
			return nil, err
		}
		// The cut-over time is taken after the `kubernetes` Service moved, so
		// finish counts every pod holding its old KUBERNETES_SERVICE_HOST.
		if err := r.moveKubernetes(ctx, st); err != nil {
			return nil, err
		}
		if r.opts.StopBeforeCutOver {
			fmt.Fprintln(r.opts.Log, StoppedBeforeCutOver)
			return r.replan(ctx, st)
		}
		st.Phase, st.CutOver = PhaseCutOver, &metav1.Time{Time: r.opts.Now()}
		if err := r.store.save(ctx, st); err != nil {
			return nil, err
		}
		if err := r.step("recorded the cut-over"); err != nil {
			return nil, err
		}
	}
	if st.Phase == PhaseCutOver {
		if err := r.deleteOldServiceCIDR(ctx, st); err != nil {
			return nil, err
		}
		// Services that got an old address before the deletion took effect.
		if err := r.moveAll(ctx, st); err != nil {
			return nil, err
		}
		st.Phase = PhaseRenumbered
		if err := r.store.save(ctx, st); err != nil {
			return nil, err
		}
		if err := r.step("renumbered: bridges keep the old addresses until finish"); err != nil {
			return nil, err
		}
	}
	return r.replan(ctx, st)
}

// StoppedBeforeCutOver is what Renumber says when StopBeforeCutOver stops it.
const StoppedBeforeCutOver = "stopped before the cut-over: every Service is at its new addresses; rollback still undoes the renumber, renumber again cuts over"

// replan is the plan of st as the cluster is now: what is left of it.
func (r *Runner) replan(ctx context.Context, st *State) (*Plan, error) {
	c, err := readCluster(ctx, r.client)
	if err != nil {
		return nil, err
	}
	pl, _, err := buildPlan(c, st, r.opts.IncludeLoadBalancers)
	if pl != nil {
		pl.Notes = r.notes
	}
	return pl, err
}

func (r *Runner) ensureTarget(ctx context.Context, st *State) error {
	sc := &networkingv1.ServiceCIDR{
		ObjectMeta: metav1.ObjectMeta{Name: TargetServiceCIDRName},
		Spec:       networkingv1.ServiceCIDRSpec{CIDRs: st.To},
	}
	_, err := r.client.NetworkingV1().ServiceCIDRs().Create(ctx, sc, metav1.CreateOptions{FieldManager: FieldManager})
	if apierrors.IsAlreadyExists(err) {
		got, err := r.client.NetworkingV1().ServiceCIDRs().Get(ctx, TargetServiceCIDRName, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading ServiceCIDR %s: %w", TargetServiceCIDRName, err)
		}
		if got.DeletionTimestamp != nil {
			return fmt.Errorf("ServiceCIDR %s is being deleted (a rollback): run again once it is gone", TargetServiceCIDRName)
		}
		if strings.Join(got.Spec.CIDRs, ",") != strings.Join(st.To, ",") {
			return fmt.Errorf("ServiceCIDR %s exists with %s, not %s: delete it or renumber to its range", TargetServiceCIDRName, strings.Join(got.Spec.CIDRs, ","), strings.Join(st.To, ","))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("creating ServiceCIDR %s: %w", TargetServiceCIDRName, err)
	}
	return r.step("created ServiceCIDR %s with %s", TargetServiceCIDRName, strings.Join(st.To, ","))
}

// moveAll records the Services in the old range not yet recorded, moves every
// recorded one, repeats while new ones turn up, and waits until the apiservers
// have adopted the bridges' EndpointSlices.
func (r *Runner) moveAll(ctx context.Context, st *State) error {
	for {
		c, err := readCluster(ctx, r.client)
		if err != nil {
			return err
		}
		_, fresh, err := buildPlan(c, st, r.opts.IncludeLoadBalancers)
		if err != nil {
			return err
		}
		if len(fresh) > 0 {
			st.Services = append(st.Services, fresh...)
			if err := r.store.save(ctx, st); err != nil {
				return err
			}
			if err := r.step("recorded %d Services", len(fresh)); err != nil {
				return err
			}
		}
		if err := r.ensureHolders(ctx, st, c); err != nil {
			return err
		}
		for i := range st.Services {
			if err := r.moveService(ctx, st, &st.Services[i]); err != nil {
				return err
			}
		}
		if len(fresh) == 0 {
			r.closeWindow()
			if err := r.deleteHolders(ctx, st); err != nil {
				return err
			}
			return r.waitAdopted(ctx, st)
		}
	}
}

// getRecorded is the recorded Service, nil when it is gone or another now has its name.
func (r *Runner) getRecorded(ctx context.Context, rec *ServiceRecord) (*corev1.Service, error) {
	live, err := r.client.CoreV1().Services(rec.Namespace).Get(ctx, rec.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) || (err == nil && live.UID != rec.UID) {
		fmt.Fprintf(r.opts.Log, "Service %s was deleted since it was recorded; nothing to do\n", rec.key())
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading Service %s: %w", rec.key(), err)
	}
	return live, nil
}

// moveService takes one recorded Service to its new addresses, from whatever
// step a previous run reached. With a holder, the name never resolves to an
// address kube-proxy does not serve: the flip makes it a CNAME to the holder,
// which has served the new addresses since a sync before; the bridge takes
// the old addresses; the CNAME turns to the bridge; and the holder's delete
// and the Service's return to the new addresses land in one sync. A Service
// an earlier run left flipped gets its holder again and a window of its
// own making for the last two (see standBy).
func (r *Runner) moveService(ctx context.Context, st *State, rec *ServiceRecord) error {
	live, err := r.getRecorded(ctx, rec)
	if live == nil || err != nil {
		return err
	}
	resumed := live.Spec.Type == corev1.ServiceTypeExternalName
	if !resumed {
		if equalIPs(ClusterIPs(live), rec.NewClusterIPs) {
			return r.restoreOwners(ctx, rec, live)
		}
		if !equalIPs(ClusterIPs(live), rec.OldClusterIPs) {
			return fmt.Errorf("the Service %s has ClusterIPs %v, neither the recorded %v nor %v", rec.key(), ClusterIPs(live), rec.OldClusterIPs, rec.NewClusterIPs)
		}
		if !equality.Semantic.DeepEqual(live.Spec, rec.Spec) {
			// Edited since it was recorded: record it as it is now.
			rec.Spec, rec.ManagedFields = *live.Spec.DeepCopy(), live.ManagedFields
			if err := r.store.save(ctx, st); err != nil {
				return err
			}
		}
		if rec.Bridge != "" {
			if _, err := r.enterWithCopies(ctx, rec, rec.Bridge, isDNS(live)); err != nil {
				return err
			}
		}
		target := rec.Bridge
		if rec.Holder != "" {
			target = rec.Holder
		}
		if live, err = r.toExternalName(ctx, st, rec, live, target); err != nil {
			return err
		}
	} else if rec.Bridge != "" {
		// stopped after the flip: written already unless stopped in between,
		// and the address is free, so no window is waited for
		if err := r.writeAhead(ctx, rec); err != nil {
			return err
		}
	}
	if rec.Bridge != "" {
		if err := r.ensureBridge(ctx, st, rec); err != nil {
			return err
		}
		if live, err = r.retarget(ctx, st, rec, live, rec.Bridge); err != nil {
			return err
		}
	}
	if rec.Holder != "" {
		if resumed {
			if err := r.standBy(ctx, rec, rec.Holder, rec.NewClusterIPs, isDNS(live)); err != nil {
				return err
			}
		}
		if err := r.deleteHolder(ctx, rec); err != nil {
			return err
		}
	}
	if err := r.restore(ctx, st, rec, live, rec.NewClusterIPs, true); err != nil || !resumed {
		return err
	}
	return r.deletePrimers(ctx, rec.Namespace, primerName(rec.Name))
}

// enterWithCopies writes the copies of rec's EndpointSlices for the Service
// name that stands in for it (its bridge; in a rollback, its holder) and
// enters a window (see window) with room left for its flip and what follows
// it, critical asking for a window of its own. The last copy of each address
// type is written after the others, as the window's primer when it opens
// one, so that a window starts with one request per IP family however many
// slices a Service has. When the window has no room left after them, they
// are deleted and written again as the next one's primer: no flip starts after a window's budget. A
// Service without EndpointSlices needs no window: its old address refuses
// with or without its bridge. It tells whether it entered a window.
func (r *Runner) enterWithCopies(ctx context.Context, rec *ServiceRecord, name string, critical bool) (bool, error) {
	copies, err := r.copiesFor(ctx, rec, name)
	if err != nil || len(copies) == 0 {
		return false, err
	}
	ahead, last := primers(copies)
	if _, err := r.writeCopies(ctx, rec, name, ahead); err != nil {
		return false, err
	}
	prime := func() (bool, error) {
		n, err := r.writeCopies(ctx, rec, name, last)
		return n == len(last), err
	}
	if err := r.enter(ctx, rec.key(), critical, prime); err != nil {
		return false, err
	}
	if !r.roomLeft() {
		for _, s := range last {
			if err := r.deleteCopy(ctx, s); err != nil {
				return false, err
			}
		}
		if err := r.openWindow(ctx, rec.key(), false, prime); err != nil {
			return false, err
		}
	}
	r.admit()
	return true, nil
}

// primers splits copies into those written ahead of a window and its
// primer: the last copy of each address type. A dual-stack kube-proxy runs
// one proxier per IP family and hands each only the EndpointSlices of its
// own: a primer of one family would leave the other's proxier idle, and the
// Service's flip, which both see, would start a sync of it at once.
func primers(copies []*discoveryv1.EndpointSlice) (ahead, last []*discoveryv1.EndpointSlice) {
	lastOf := map[discoveryv1.AddressType]int{}
	for i, s := range copies {
		lastOf[s.AddressType] = i
	}
	for i, s := range copies {
		if lastOf[s.AddressType] == i {
			last = append(last, s)
		} else {
			ahead = append(ahead, s)
		}
	}
	return ahead, last
}

// toExternalName flips a Service to ExternalName, a CNAME to the Service
// target (its holder or its bridge): its ClusterIPs are released, its name
// keeps resolving.
func (r *Runner) toExternalName(ctx context.Context, st *State, rec *ServiceRecord, live *corev1.Service, target string) (*corev1.Service, error) {
	if target == "" {
		target = bridgeName(rec.Name) // no Service stands in: the name does not resolve until the restore
	}
	u := live.DeepCopy()
	u.Spec = corev1.ServiceSpec{
		Type:         corev1.ServiceTypeExternalName,
		ExternalName: serviceDNS(rec.Namespace, target, st.ClusterDomain),
		Selector:     rec.Spec.Selector,
		Ports:        plainPorts(rec.Spec.Ports),
	}
	updated, err := r.client.CoreV1().Services(rec.Namespace).Update(ctx, u, metav1.UpdateOptions{FieldManager: FieldManager})
	if err != nil {
		return nil, fmt.Errorf("flipping Service %s to type ExternalName: %w", rec.key(), err)
	}
	return updated, r.step("Service %s: type ExternalName -> %s (released %s)", rec.key(), u.Spec.ExternalName, strings.Join(ClusterIPs(live), ","))
}

// retarget turns the CNAME of live, flipped to ExternalName, to the Service
// target, unless it points there already: the Service it pointed at is
// deleted next.
func (r *Runner) retarget(ctx context.Context, st *State, rec *ServiceRecord, live *corev1.Service, target string) (*corev1.Service, error) {
	name := serviceDNS(rec.Namespace, target, st.ClusterDomain)
	if live.Spec.ExternalName == name {
		return live, nil
	}
	u := live.DeepCopy()
	u.Spec.ExternalName = name
	updated, err := r.client.CoreV1().Services(rec.Namespace).Update(ctx, u, metav1.UpdateOptions{FieldManager: FieldManager})
	if err != nil {
		return nil, fmt.Errorf("pointing Service %s at %s: %w", rec.key(), target, err)
	}
	return updated, r.step("Service %s: ExternalName -> %s", rec.key(), name)
}

// plainPorts are ports without node ports, for an ExternalName or bridge Service.
func plainPorts(ports []corev1.ServicePort) []corev1.ServicePort {
	out := make([]corev1.ServicePort, len(ports))
	for i, p := range ports {
		p.NodePort = 0
		out[i] = p
	}
	return out
}

// ensureBridge creates the bridge Service at the old addresses, with the
// moved Service's ports, unless it exists.
func (r *Runner) ensureBridge(ctx context.Context, st *State, rec *ServiceRecord) error {
	svcs := r.client.CoreV1().Services(rec.Namespace)
	// Create first and read only when that fails: the old address is unserved from the flip
	// until this create, so no request may come before it. A bridge made by an earlier run
	// fails it too, as AlreadyExists or, since the allocator runs first, as its address taken.
	if _, err := svcs.Create(ctx, newBridge(rec), metav1.CreateOptions{FieldManager: FieldManager}); err != nil {
		got, getErr := svcs.Get(ctx, rec.Bridge, metav1.GetOptions{})
		switch {
		case getErr == nil && got.Labels[BridgeLabel] == rec.Name:
			return nil
		case getErr == nil:
			return fmt.Errorf("the Service %s/%s exists and is not the bridge of %s", rec.Namespace, rec.Bridge, rec.key())
		case !apierrors.IsNotFound(getErr):
			return fmt.Errorf("reading bridge Service %s/%s: %w", rec.Namespace, rec.Bridge, getErr)
		}
		if !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) {
			return fmt.Errorf("creating bridge Service %s/%s: %w", rec.Namespace, rec.Bridge, err)
		}
		// Refused for good (the old address taken in the moment it was free, a
		// quota, an admission policy): the Service moves on without a bridge
		// rather than wait as ExternalName.
		fmt.Fprintf(r.opts.Log, "Service %s: no bridge at %s: %v\n", rec.key(), strings.Join(rec.OldClusterIPs, ","), err)
		if err := r.deleteAhead(ctx, rec.Namespace, rec.Bridge); err != nil {
			return err
		}
		rec.Bridge = ""
		return r.store.save(ctx, st)
	}
	return r.step("Service %s/%s: bridge created at %s", rec.Namespace, rec.Bridge, strings.Join(rec.OldClusterIPs, ","))
}

// newBridge is the bridge Service of rec at its old addresses.
func newBridge(rec *ServiceRecord) *corev1.Service {
	return standIn(rec, rec.Bridge, rec.OldClusterIPs)
}

// standIn is a Service name that stands in for rec at ips (its bridge or its
// holder), with its ports without node ports, IP families and session
// affinity, and no selector: the apiservers' service-bridge controller gives
// it copies of rec's EndpointSlices.
func standIn(rec *ServiceRecord, name string, ips []string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: rec.Namespace,
			Labels: map[string]string{BridgeLabel: rec.Name},
		},
		Spec: corev1.ServiceSpec{
			Type:                     corev1.ServiceTypeClusterIP,
			ClusterIP:                ips[0],
			ClusterIPs:               ips,
			IPFamilies:               rec.Spec.IPFamilies,
			IPFamilyPolicy:           rec.Spec.IPFamilyPolicy,
			Ports:                    plainPorts(rec.Spec.Ports),
			SessionAffinity:          rec.Spec.SessionAffinity,
			SessionAffinityConfig:    rec.Spec.SessionAffinityConfig,
			PublishNotReadyAddresses: rec.Spec.PublishNotReadyAddresses,
		},
	}
}

// restore flips an ExternalName Service back to its recorded spec at ips;
// when repick, addresses taken meanwhile are chosen again and recorded.
func (r *Runner) restore(ctx context.Context, st *State, rec *ServiceRecord, live *corev1.Service, ips []string, repick bool) error {
	for attempt := 0; ; attempt++ {
		u := live.DeepCopy()
		u.Spec = *rec.Spec.DeepCopy()
		u.Spec.ClusterIP, u.Spec.ClusterIPs = ips[0], ips
		updated, err := r.client.CoreV1().Services(rec.Namespace).Update(ctx, u, metav1.UpdateOptions{FieldManager: FieldManager})
		if err == nil {
			if err := r.step("Service %s: back to type %s at %s", rec.key(), rec.Spec.Type, strings.Join(ips, ",")); err != nil {
				return err
			}
			return r.restoreOwners(ctx, rec, updated)
		}
		if !repick || !isAllocated(err) || !strings.Contains(err.Error(), "clusterIP") || attempt >= 3 {
			return fmt.Errorf("moving Service %s back to type %s at %s: %w", rec.key(), rec.Spec.Type, strings.Join(ips, ","), err)
		}
		if ips, err = r.repick(ctx, st, rec); err != nil {
			return err
		}
		if live, err = r.getRecorded(ctx, rec); live == nil || err != nil {
			return err
		}
	}
}

// restoreOwners gives a Service back the managedFields it had when recorded:
// the flip back made this tool the owner of every field whose value differs
// from the ExternalName form. An update that changes only managedFields sets
// them as given.
func (r *Runner) restoreOwners(ctx context.Context, rec *ServiceRecord, live *corev1.Service) error {
	if len(rec.ManagedFields) == 0 || !ownedBy(live, FieldManager) {
		return nil
	}
	u := live.DeepCopy()
	u.ManagedFields = rec.ManagedFields
	if _, err := r.client.CoreV1().Services(rec.Namespace).Update(ctx, u, metav1.UpdateOptions{FieldManager: FieldManager}); err != nil {
		return fmt.Errorf("restoring the field managers of Service %s: %w", rec.key(), err)
	}
	return r.step("Service %s: field managers restored", rec.key())
}

func ownedBy(svc *corev1.Service, manager string) bool {
	for _, m := range svc.ManagedFields {
		if m.Manager == manager {
			return true
		}
	}
	return false
}

// repick chooses and records new addresses for rec when its chosen ones were taken.
func (r *Runner) repick(ctx context.Context, st *State, rec *ServiceRecord) ([]string, error) {
	c := &cluster{}
	if err := c.readTaken(ctx, r.client); err != nil {
		return nil, err
	}
	from, _ := ParseRanges(strings.Join(st.From, ","))
	to, _ := ParseRanges(strings.Join(st.To, ","))
	for _, o := range st.Services {
		for _, ip := range o.NewClusterIPs {
			if a, err := netip.ParseAddr(ip); err == nil {
				c.taken[a] = true
			}
		}
	}
	ips, err := (&picker{from: from, to: to, taken: c.taken}).pickAll(rec.OldClusterIPs)
	if err != nil {
		return nil, fmt.Errorf("choosing addresses for Service %s: %w", rec.key(), err)
	}
	fmt.Fprintf(r.opts.Log, "Service %s: %s taken meanwhile; chose %s\n", rec.key(), strings.Join(rec.NewClusterIPs, ","), strings.Join(ips, ","))
	rec.NewClusterIPs = ips
	return ips, r.store.save(ctx, st)
}

func isAllocated(err error) bool {
	return apierrors.IsInvalid(err) && strings.Contains(err.Error(), "already allocated")
}

// updateConfigs edits kubeadm's ConfigMaps, recording each old value first.
func (r *Runner) updateConfigs(ctx context.Context, st *State) error {
	c, err := readCluster(ctx, r.client)
	if err != nil {
		return err
	}
	pl, _, err := buildPlan(c, st, r.opts.IncludeLoadBalancers)
	if err != nil {
		return err
	}
	for _, u := range configUpdates(c, st, pl) {
		if !hasConfig(st, u.Name, u.Key) {
			st.Configs = append(st.Configs, u.ConfigRecord)
			if err := r.store.save(ctx, st); err != nil {
				return err
			}
		}
		changed, err := r.setConfig(ctx, u.Name, u.Key, u.Old, u.New)
		if err != nil {
			return err
		}
		if !changed {
			continue
		}
		if err := r.step("ConfigMap %s/%s key %s: %s", metav1.NamespaceSystem, u.Name, u.Key, u.summary); err != nil {
			return err
		}
	}
	return nil
}

func hasConfig(st *State, name, key string) bool {
	for _, c := range st.Configs {
		if c.Name == name && c.Key == key {
			return true
		}
	}
	return false
}

// setConfig sets a ConfigMap value from before to after and says whether it
// changed it; a value that is neither is left alone and reported.
func (r *Runner) setConfig(ctx context.Context, name, key, before, after string) (bool, error) {
	cms := r.client.CoreV1().ConfigMaps(metav1.NamespaceSystem)
	cm, err := cms.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false, fmt.Errorf("reading ConfigMap %s/%s: %w", metav1.NamespaceSystem, name, err)
	}
	switch cm.Data[key] {
	case after:
		return false, nil
	case before:
	default:
		return false, fmt.Errorf("ConfigMap %s/%s key %s changed since the renumber recorded it; edit it by hand", metav1.NamespaceSystem, name, key)
	}
	cm.Data[key] = after
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: FieldManager}); err != nil {
		return false, fmt.Errorf("updating ConfigMap %s/%s: %w", metav1.NamespaceSystem, name, err)
	}
	return true, nil
}

// deleteOldServiceCIDR deletes the `kubernetes` ServiceCIDR holding the old
// range: it stays Terminating, allocating nothing, while addresses are in use.
func (r *Runner) deleteOldServiceCIDR(ctx context.Context, st *State) error {
	cidrs := r.client.NetworkingV1().ServiceCIDRs()
	sc, err := cidrs.Get(ctx, DefaultServiceCIDRName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading ServiceCIDR %s: %w", DefaultServiceCIDRName, err)
	}
	if sc.DeletionTimestamp != nil || strings.Join(sc.Spec.CIDRs, ",") != strings.Join(st.From, ",") {
		return nil
	}
	err = cidrs.Delete(ctx, DefaultServiceCIDRName, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &sc.UID}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting ServiceCIDR %s: %w", DefaultServiceCIDRName, err)
	}
	return r.step("cut-over: deleted ServiceCIDR %s (%s)", DefaultServiceCIDRName, strings.Join(st.From, ","))
}
