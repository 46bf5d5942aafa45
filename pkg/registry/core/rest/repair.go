package rest

import (
	"context"
	"fmt"
	"sync"
	"time"

	genericapiserver "k8s.io/apiserver/pkg/server"
)

// RepairHookName is upstream's name for the hook, kept so /readyz checks read the same.
const RepairHookName = "start-service-ip-repair-controllers"

// defaultRepairStartupTimeout is how long upstream lets the first repair passes take.
const defaultRepairStartupTimeout = time.Minute

// PostStartHook starts the ClusterIP and NodePort repair loops; the apiserver is
// not ready until each has completed one pass, and fails to start when that takes
// longer than RepairStartupTimeout.
func (p *Provider) PostStartHook() (string, genericapiserver.PostStartHookFunc, error) {
	return RepairHookName, func(hookContext genericapiserver.PostStartHookContext) error {
		timeout := p.Services.RepairStartupTimeout
		if timeout == 0 {
			timeout = defaultRepairStartupTimeout
		}
		return runRepairLoops(hookContext, timeout,
			p.allocators.clusterIPRepair.RunUntil,
			p.allocators.nodePortRepair.RunUntil)
	}, nil
}

// runRepairLoops starts every loop until ctx ends and waits for each one's first pass.
func runRepairLoops(ctx context.Context, timeout time.Duration, loops ...func(onFirstSuccess func(), stopCh chan struct{})) error {
	stopCh := make(chan struct{})
	go func() {
		<-ctx.Done()
		close(stopCh)
	}()

	var firstPasses sync.WaitGroup
	for _, loop := range loops {
		firstPasses.Add(1)
		var once sync.Once
		go loop(func() { once.Do(firstPasses.Done) }, stopCh)
	}
	done := make(chan struct{})
	go func() {
		firstPasses.Wait()
		close(done)
	}()

	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("unable to perform initial IP and Port allocation check (context canceled)")
	case <-time.After(timeout):
		return fmt.Errorf("unable to perform initial IP and Port allocation check (timeout after %s)", timeout)
	}
}
