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

package cluster

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/netfork/netfork/internal/proc"

	"github.com/netfork/netfork/test/bench/internal/ranges"
)

// readyPollInterval is how often a new apiserver's readiness is polled.
const readyPollInterval = 250 * time.Millisecond

// waitReady waits until the apiserver's /readyz passes and the kubernetes Service has its
// ClusterIP, which shows the ClusterIP allocator serves; it gives up when the apiserver
// exits, the timeout passes or ctx ends.
func waitReady(ctx context.Context, a *APIServer, timeout time.Duration) error {
	err := proc.WaitReady(ctx, a.config, proc.ExitsOn(a.Process), proc.Timeout(timeout), proc.Interval(readyPollInterval), proc.AlsoWaitFor(func(ctx context.Context) error {
		svc, err := a.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("kubernetes Service: %w", err)
		}
		if svc.Spec.ClusterIP != ranges.KubernetesServiceIP {
			return fmt.Errorf("kubernetes Service has ClusterIP %q, not yet %s", svc.Spec.ClusterIP, ranges.KubernetesServiceIP)
		}
		return nil
	}))
	if err != nil && !a.Process.Exited() && ctx.Err() == nil {
		return fmt.Errorf("apiserver pid %d: %w (log: %s)", a.Process.Pid(), err, a.Process.LogPath())
	}
	return err
}
