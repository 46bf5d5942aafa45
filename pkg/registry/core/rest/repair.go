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

package rest

import (
	"context"
	"errors"
	"sync"
	"time"

	genericapiserver "k8s.io/apiserver/pkg/server"
)

// RepairHookName is upstream's name for the hook, kept so /readyz checks read the same.
const RepairHookName = "start-service-ip-repair-controllers"

// repairStartupTimeout is how long upstream lets the first repair passes take.
const repairStartupTimeout = time.Minute

// PostStartHook starts the ClusterIP and NodePort repair loops; the apiserver is
// not ready until each has completed one pass, and fails to start when that takes
// longer than repairStartupTimeout. It stands beside upstream's legacy
// provider's PostStartHook (same name, same words), which cannot run netfork's loops.
func (p *Provider) PostStartHook() (string, genericapiserver.PostStartHookFunc, error) {
	return RepairHookName, func(hookContext genericapiserver.PostStartHookContext) error {
		// The allocators and the IPAddress repair loop follow the IPAddress
		// index; the ServiceCIDR controllers' hook starts it too.
		if p.Services.IPAddresses != nil && p.Services.Allocation.UsesIPAddresses() {
			p.Services.IPAddresses.Start(hookContext)
		}
		return runRepairLoops(hookContext, repairStartupTimeout,
			p.allocators.clusterIPRepair.RunUntil,
			p.allocators.nodePortRepair.RunUntil)
	}, nil
}

// runRepairLoops starts every loop until ctx ends and waits for each one's
// first pass, failing with upstream's words after timeout.
func runRepairLoops(ctx context.Context, timeout time.Duration, loops ...func(onFirstSuccess func(), stopCh chan struct{})) error {
	stopCh := make(chan struct{})
	context.AfterFunc(ctx, func() { close(stopCh) })
	passed := make(chan struct{}, len(loops))
	for _, loop := range loops {
		go loop(sync.OnceFunc(func() { passed <- struct{}{} }), stopCh)
	}
	// upstream-shim begin: k8s.io/kubernetes/pkg/registry/core/rest/storage_core.go legacyProvider.PostStartHook
	deadline := time.After(timeout)
	for range loops {
		select {
		case <-passed:
		case <-ctx.Done():
			return errors.New("unable to perform initial IP and Port allocation check (context cancelled)") //nolint:misspell // upstream's words
		case <-deadline:
			return errors.New("unable to perform initial IP and Port allocation check (timeout)")
		}
	}
	return nil
	// upstream-shim end
}
