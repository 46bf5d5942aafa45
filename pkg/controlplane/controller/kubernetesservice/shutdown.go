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

package kubernetesservice

import (
	"context"
	"time"

	"k8s.io/klog/v2"
)

// Stop is the pre-shutdown hook. The generic apiserver runs it as shutdown
// starts and keeps accepting requests until both it and
// --shutdown-delay-duration are over, so this apiserver stays published as
// terminating for the delay and removes itself while it still serves. Like
// upstream's, it never holds shutdown up for more than two intervals past the
// delay, whatever etcd does.
func (c *Controller) Stop() {
	c.stopOnce.Do(func() {
		start := time.Now()
		c.lock.Lock()
		c.stopped = true
		close(c.stopCh)
		c.lock.Unlock()
		c.queue.ShutDown()
		limit := c.ShutdownDelay + 2*c.Interval
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		logger := klog.FromContext(ctx).WithValues("controller", controllerName)
		ctx = klog.NewContext(ctx, logger)

		done := make(chan struct{})
		go func() {
			defer close(done)
			c.handOff(ctx, start.Add(c.ShutdownDelay))
		}()
		select {
		case <-done:
		case <-ctx.Done():
			logger.Info("Removing this apiserver from the kubernetes Service's endpoints timed out", "after", limit)
		}
		c.broadcaster.Shutdown()
	})
}

// handOff publishes this apiserver as terminating until removeAt, refreshing
// its leases every interval, then removes it. An apiserver that never became
// ready only cleans up; one that reconciled hands off even when none of its
// reconciles succeeded (a peer's write got in between), since peers publish it
// from the lease each reconcile refreshed first.
func (c *Controller) handOff(ctx context.Context, removeAt time.Time) {
	logger := klog.FromContext(ctx)
	ports := c.endpointPorts()
	if c.reconciled.Load() {
		for {
			if _, err := c.Reconciler.MarkTerminating(ctx, ports); err != nil {
				logger.Error(err, "Publishing this apiserver as terminating")
			}
			wait := time.Until(removeAt)
			if wait <= 0 {
				break
			}
			if wait > c.Interval {
				wait = c.Interval
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
	}
	c.Reconciler.StopReconciling()
	c.running.Wait()
	d, err := c.Reconciler.Remove(ctx, ports)
	if err != nil {
		logger.Error(err, "Removing this apiserver from the kubernetes Service's endpoints")
	} else if len(d.Members) > 0 && !c.dualStack(d) {
		// The apiservers left call for one family. When they are upstream's
		// (a downgrade), none of them would ever change the Service's families,
		// so the last netfork apiserver to leave does it on its way out.
		if err := c.reshapeService(ctx, d); err != nil {
			logger.Error(err, "Handing the kubernetes Service over in the shape the remaining apiservers call for")
		}
	}
	c.Reconciler.Destroy()
}
