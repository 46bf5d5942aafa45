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

package servicecidrs

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

const (
	// LeaseNamespace is the namespace of the Lease netfork apiservers elect this controller's leader with.
	LeaseNamespace = metav1.NamespaceSystem
	// LeaseName is that Lease's name.
	LeaseName = "netfork-service-cidr-controller"
)

// LeaderElection says how apiservers elect the one that runs the controller.
// The durations are client-go's defaults for core components unless set.
type LeaderElection struct {
	// Identity names this apiserver in the Lease; the apiserver's ID.
	Identity string

	Namespace, Name string
	LeaseDuration   time.Duration
	RenewDeadline   time.Duration
	RetryPeriod     time.Duration
}

func (le LeaderElection) withDefaults() LeaderElection {
	if le.Namespace == "" {
		le.Namespace = LeaseNamespace
	}
	if le.Name == "" {
		le.Name = LeaseName
	}
	if le.LeaseDuration == 0 {
		le.LeaseDuration = 15 * time.Second
	}
	if le.RenewDeadline == 0 {
		le.RenewDeadline = 10 * time.Second
	}
	if le.RetryPeriod == 0 {
		le.RetryPeriod = 2 * time.Second
	}
	return le
}

// RunLeading calls run each time this apiserver becomes the leader, with a
// context that ends when it stops leading or ctx ends, until ctx ends.
// Unlike a controller-manager it does not exit on a lost lease: the apiserver
// keeps serving and stands for election again. The Lease is released only
// after run has returned, so two apiservers never run it at once on a clean
// hand-over. With le nil, run runs once, unelected.
func RunLeading(ctx context.Context, client kubernetes.Interface, le *LeaderElection, run func(context.Context)) error {
	if le == nil {
		run(ctx)
		return nil
	}
	config := le.withDefaults()
	if config.Identity == "" {
		return fmt.Errorf("leader election for %s/%s needs an identity", config.Namespace, config.Name)
	}
	for ctx.Err() == nil {
		if err := runTerm(ctx, client, config, run); err != nil {
			return err
		}
	}
	return nil
}

// runTerm waits to lead, runs run while leading, then releases the Lease.
func runTerm(ctx context.Context, client kubernetes.Interface, le LeaderElection, run func(context.Context)) error {
	logger := klog.FromContext(ctx).WithValues("lease", klog.KRef(le.Namespace, le.Name), "identity", le.Identity)
	leading := make(chan context.Context, 1)
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: le.Namespace, Name: le.Name},
			Client:     client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: le.Identity},
		},
		LeaseDuration:   le.LeaseDuration,
		RenewDeadline:   le.RenewDeadline,
		RetryPeriod:     le.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            le.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leaderCtx context.Context) { leading <- leaderCtx },
			OnStoppedLeading: func() { logger.V(2).Info("Not leading") },
		},
	})
	if err != nil {
		return fmt.Errorf("leader election for %s/%s: %w", le.Namespace, le.Name, err)
	}

	// The elector outlives ctx until run has stopped, so the Lease is released
	// by an apiserver that no longer acts on it.
	electorCtx, stopElector := context.WithCancel(context.WithoutCancel(ctx))
	defer stopElector()
	electorDone := make(chan struct{})
	go func() {
		defer close(electorDone)
		elector.Run(electorCtx)
	}()

	select {
	case <-ctx.Done():
	case <-electorDone:
	case leaderCtx := <-leading:
		logger.Info("Leading")
		runCtx, stopRun := context.WithCancel(leaderCtx)
		stopOnCancel := context.AfterFunc(ctx, stopRun)
		run(runCtx)
		stopOnCancel()
		stopRun()
	}
	stopElector()
	<-electorDone
	return nil
}
