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

package fakewatch

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

// TestWaitCoversTheListWatchGap holds the informer's Watch in the gap between
// its List and the tracker, after the informer reports synced: the wait must
// not have returned while the Watch is held, and a delete made once it
// returns must reach the informer.
func TestWaitCoversTheListWatchGap(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "default"}}
	client := fake.NewClientset(svc)
	wait := Started(client, "services")

	// prepended after Started's, so it runs first: it holds the first Watch
	watchCalled, release := make(chan struct{}), make(chan struct{})
	first := true
	client.PrependWatchReactor("services", func(k8stesting.Action) (bool, watch.Interface, error) {
		if first {
			first = false
			close(watchCalled)
			<-release
		}
		return false, nil, nil
	})

	factory := informers.NewSharedInformerFactory(client, 0)
	deleted := make(chan struct{})
	if _, err := factory.Core().V1().Services().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(any) { close(deleted) },
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		factory.Shutdown()
	}()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	select {
	case <-watchCalled:
	case <-time.After(30 * time.Second):
		t.Fatal("the informer never called Watch")
	}

	returned := make(chan struct{})
	go func() {
		defer close(returned)
		wait(t)
	}()
	select {
	case <-returned:
		t.Fatal("the wait returned while the informer's Watch had not reached the tracker")
	default:
	}
	close(release)
	<-returned

	if err := client.CoreV1().Services("default").Delete(ctx, "s", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-deleted:
	case <-time.After(30 * time.Second):
		t.Fatal("the informer never saw the delete made after the wait")
	}
}
