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

// Package fakewatch closes a gap in client-go's fake clientset for informer
// tests: an informer reports synced after its List, before its Watch reaches
// the fake's object tracker, and the tracker keeps no history, so an object
// deleted in between is never reported to the informer.
package fakewatch

import (
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// Started makes client's watches on each resource go straight to its tracker
// and returns a wait that blocks until every resource has one. Call it before
// any informer starts; call the wait after the informers report synced.
func Started(client *fake.Clientset, resources ...string) func(testing.TB) {
	var wg sync.WaitGroup
	for _, resource := range resources {
		wg.Add(1)
		var once sync.Once
		client.PrependWatchReactor(resource, func(action k8stesting.Action) (bool, watch.Interface, error) {
			var opts metav1.ListOptions
			if a, ok := action.(k8stesting.WatchActionImpl); ok {
				opts = a.ListOptions
			}
			w, err := client.Tracker().Watch(action.GetResource(), action.GetNamespace(), opts)
			if err == nil {
				once.Do(wg.Done)
			}
			return true, w, err
		})
	}
	return func(t testing.TB) {
		t.Helper()
		done := make(chan struct{})
		go func() {
			wg.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("the informers never started their watches on %v", resources)
		}
	}
}
