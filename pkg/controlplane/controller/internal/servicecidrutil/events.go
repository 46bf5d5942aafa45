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

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
)

// StartRecorder returns an events/v1 recorder that reports as controller and
// writes through client until ctx ends.
func StartRecorder(ctx context.Context, client kubernetes.Interface, controller string) events.EventRecorder {
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	if err := broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		// only a second start of this broadcaster fails, and it is new
		klog.FromContext(ctx).Error(err, "Starting the event recorder", "controller", controller)
	}
	context.AfterFunc(ctx, broadcaster.Shutdown)
	return broadcaster.NewRecorder(scheme.Scheme, controller)
}
