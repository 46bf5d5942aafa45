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
	"fmt"
	"time"
)

// defaultKubeProxySyncPeriod is kube-proxy's default minimum sync period
// (iptables and nftables modes).
const defaultKubeProxySyncPeriod = time.Second

// settle is how long a window waits after its primer for kube-proxy's sync
// to start: the primer's watch event reaches kube-proxy well within it.
const settle = 200 * time.Millisecond

// ownMargin is what a window of its own (see ownSettle) leaves of its budget
// for its Service's requests.
const ownMargin = 150 * time.Millisecond

// idleMargin is what a pause adds to two sync periods: kube-controller-manager
// writes a restored Service's EndpointSlices within about 200 ms of the
// restore, and each of the two syncs that may follow runs for a while and
// reaches kube-proxy through a watch.
const idleMargin = 400 * time.Millisecond

// window is a stretch of time in which kube-proxy does not sync, so that a
// Service's two requests that free its old address and take it again (its
// flip and its bridge's create; in a rollback, the bridge's delete and the
// Service's return), tens of milliseconds apart, land in the same sync. A
// sync between them would leave the address answering nothing until the
// next, up to a period later. kube-proxy applies changes through upstream's
// BoundedFrequencyRunner: a change starts a sync at once when the last one
// ended at least a period before, else it waits until a period after the
// last one ended. A window is opened by a pause until kube-proxy is idle, a
// change (the primer) that starts a sync at once, and a wait for that sync
// to start (settle); while the time since the primer leaves room (budget),
// Services then move one after another, and their requests all land in
// kube-proxy's next sync, a period after the primer's.
type window struct {
	// n counts the windows this run opened, for the log.
	n int
	// start is when the primer was sent; zero while no window is open.
	start time.Time
	// primed is false when the primer changed nothing (its copies were
	// written by a run killed before the flip): kube-proxy then syncs on the
	// first Service's flip, and the window takes no other Service.
	primed bool
	// services counts the Services whose two requests fell in the window.
	services int
	// own is true for a window of its own: it takes no other Service.
	own bool
}

// pacing tells whether Services move in windows: a kube-proxy sync period
// is set (negative turns them off).
func (r *Runner) pacing() bool {
	return r.opts.KubeProxySyncPeriod > 0
}

// budget is how long after its primer a window still takes a Service's
// freeing request: three fifths of the period, which leaves two fifths (400
// ms of 1 s) for that request, its partner and their watch events to reach
// kube-proxy before its next sync, which starts a period after the primer's
// at the earliest.
func (r *Runner) budget() time.Duration {
	return r.opts.KubeProxySyncPeriod * 3 / 5
}

// idleAfter is how long after this tool's last change kube-proxy is surely
// idle. The last change reaches kube-proxy, and the EndpointSlice writes of
// kube-controller-manager it triggers follow within the margin; a sync
// running then ends within the margin too, the one it queued starts a period
// later, and kube-proxy takes a change at once a period after that one ended:
// two periods and the margin.
func (r *Runner) idleAfter() time.Duration {
	return 2*r.opts.KubeProxySyncPeriod + idleMargin
}

// enter makes change, the first request of a Service's move, in the open
// window while its budget lasts, else as the primer of a new one; fresh asks
// for a new one anyway (an address every pod uses gets the whole margin).
// change tells whether it changed anything.
func (r *Runner) enter(ctx context.Context, key string, fresh bool, change func() (bool, error)) error {
	if !r.pacing() || (!fresh && r.roomLeft()) {
		_, err := change()
		return err
	}
	return r.openWindow(ctx, key, fresh, change)
}

// ownSettle is how long a window of its own waits after its primer: all of
// its budget but ownMargin, as it takes no other Service. Its Service's
// requests then still land before kube-proxy's next sync however late in
// the wait the primer's sync starts; a primer's watch event slowed on its way
// to kube-proxy (a loaded control plane, another apiserver) is what a short
// settle would let fall between them.
func (r *Runner) ownSettle() time.Duration {
	return max(r.budget()-ownMargin, settle)
}

// roomLeft tells whether the open window may take a Service's freeing
// request now: always for the Service its primer was for, else while the
// window is primed, not its Service's own and within its budget.
func (r *Runner) roomLeft() bool {
	switch {
	case !r.pacing():
		return true
	case r.win.start.IsZero():
		return false
	case r.win.services == 0:
		return true
	case r.win.own:
		return false
	}
	return r.win.primed && r.opts.Now().Sub(r.win.start) < r.budget()
}

// admit counts a Service whose freeing request the open window takes.
func (r *Runner) admit() {
	if r.pacing() {
		r.win.services++
	}
}

// openWindow closes the open window, pauses until kube-proxy is idle, makes
// primer for the Service key and waits for kube-proxy's sync to start, the
// longer when the window is the Service's own.
func (r *Runner) openWindow(ctx context.Context, key string, own bool, primer func() (bool, error)) error {
	r.closeWindow()
	pause, note, err := r.pauseUntilIdle(ctx)
	if err != nil {
		return err
	}
	r.win = window{n: r.win.n + 1, start: r.opts.Now(), own: own}
	fmt.Fprintf(r.opts.Log, "window %d: Service %s primes kube-proxy after a pause of %s%s\n", r.win.n, key, pause.Round(time.Millisecond), note)
	changed, err := primer()
	if err != nil {
		return err
	}
	if !changed {
		fmt.Fprintf(r.opts.Log, "window %d: Service %s changed nothing (a killed run wrote its copies); kube-proxy may sync between its flip and its bridge\n", r.win.n, key)
		return nil
	}
	r.win.primed = true
	if own {
		return r.sleep(ctx, r.ownSettle())
	}
	return r.sleep(ctx, settle)
}

// pauseUntilIdle sleeps until kube-proxy is idle: idleAfter since the
// latest change to a Service or EndpointSlice, the tool's own or, when the
// run follows them, anyone's; the whole of it when the run has made none.
// It waits at most maxIdleWaits idle periods, as in a cluster that never
// stops changing kube-proxy is never idle. It returns how long it paused
// and, when another's change made it wait longer, a note for the log.
func (r *Runner) pauseUntilIdle(ctx context.Context) (time.Duration, string, error) {
	start := r.opts.Now()
	base := r.lastChange
	if base.IsZero() {
		base = start
	}
	for {
		since, what := base, ""
		// another's change, or a follow-up of the tool's own later than idleMargin covers
		if t, w := r.act.latest(); t.After(base.Add(idleMargin)) {
			since, what = t, w
		}
		paused := r.opts.Now().Sub(start)
		rest := r.idleAfter() - r.opts.Now().Sub(since)
		switch {
		case rest <= 0 && what != "":
			return paused, fmt.Sprintf(" (idle after %s)", what), nil
		case rest <= 0:
			return paused, "", nil
		case paused+rest > maxIdleWaits*r.idleAfter():
			return paused, fmt.Sprintf(" (not idle: %s changed %s before)", what, r.opts.Now().Sub(since).Round(time.Millisecond)), nil
		}
		if err := r.sleep(ctx, rest); err != nil {
			return 0, "", err
		}
	}
}

// maxIdleWaits is how many idle periods a window waits at most for kube-proxy to be idle.
const maxIdleWaits = 3

// closeWindow reports the open window, if any, and closes it.
func (r *Runner) closeWindow() {
	if r.win.start.IsZero() {
		return
	}
	fmt.Fprintf(r.opts.Log, "window %d: %d Services\n", r.win.n, r.win.services)
	r.win.start = time.Time{}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
