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
