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

package registrytest

import (
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Event is what the tests check of a recorded event.
type Event struct {
	Regarding, EventType, Reason, Action, Note string
}

// Recorder records events in order; it implements events.EventRecorder.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

// Eventf records the event on regarding, a Service.
func (r *Recorder) Eventf(regarding runtime.Object, _ runtime.Object, eventType, reason, action, note string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	svc := regarding.(*corev1.Service)
	r.events = append(r.events, Event{
		Regarding: svc.Namespace + "/" + svc.Name,
		EventType: eventType, Reason: reason, Action: action,
		Note: fmt.Sprintf(note, args...),
	})
}

// Recorded is the events recorded so far, in order.
func (r *Recorder) Recorded() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}
