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

package servicecidrutil

import (
	"context"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// ProcessNext takes one ServiceCIDR name from queue and syncs it: forgotten on
// success, retried rate-limited up to maxRetries times, then dropped until its
// next event. It returns false once the queue is shut down.
func ProcessNext(ctx context.Context, queue workqueue.TypedRateLimitingInterface[string], maxRetries int, sync func(context.Context, string) error) bool {
	key, quit := queue.Get()
	if quit {
		return false
	}
	defer queue.Done(key)

	switch err := sync(ctx, key); {
	case err == nil:
		queue.Forget(key)
	case queue.NumRequeues(key) < maxRetries:
		klog.FromContext(ctx).V(2).Info("Syncing ServiceCIDR failed, will retry", "serviceCIDR", key, "err", err)
		queue.AddRateLimited(key)
	default:
		queue.Forget(key)
		utilruntime.HandleErrorWithContext(ctx, err, "Syncing ServiceCIDR failed; dropped until its next event", "serviceCIDR", key)
	}
	return true
}
