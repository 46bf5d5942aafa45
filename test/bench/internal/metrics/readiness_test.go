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

package metrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestReadinessCountsFlaps(t *testing.T) {
	// The apiserver answers ready, not ready twice, ready, not ready, then ready: two
	// flaps and three polls not ready.
	answers := []int{200, 500, 503, 200, 500, 200, 200}
	var mu sync.Mutex
	polls := 0
	seen := make(chan struct{})
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if req.URL.Path != "/readyz" {
			t.Errorf("polled %s, want /readyz", req.URL.Path)
		}
		if polls < len(answers) {
			w.WriteHeader(answers[polls])
		}
		polls++
		if polls == len(answers) {
			close(seen)
		}
	}))
	defer server.Close()
	r := WatchReadiness(context.Background(), []string{server.URL}, time.Millisecond)
	<-seen
	flaps, down := r.Stop()
	if flaps[server.URL] != 2 || down[server.URL] != 3 {
		t.Errorf("flaps %v, not-ready polls %v; want 2 and 3", flaps, down)
	}
}

func TestRestartsSince(t *testing.T) {
	pod := func(name string, restarts int32) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: name, Labels: map[string]string{"component": "kube-apiserver"}},
			Status:     corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{RestartCount: restarts}}},
		}
	}
	other := pod("etcd-cp", 7)
	other.Labels = map[string]string{"component": "etcd"}
	before, err := APIServerRestarts(context.Background(), fake.NewClientset(pod("kube-apiserver-cp", 1), pod("kube-apiserver-cp2", 0), other))
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 2 || before["kube-apiserver-cp"] != 1 {
		t.Fatalf("APIServerRestarts = %v, want the two apiservers' counts", before)
	}
	after := map[string]int32{"kube-apiserver-cp": 3, "kube-apiserver-cp2": 0, "kube-apiserver-cp3": 1}
	got := RestartsSince(before, after)
	if len(got) != 2 || got["kube-apiserver-cp"] != 2 || got["kube-apiserver-cp3"] != 1 {
		t.Errorf("RestartsSince = %v, want cp 2 and the new cp3 1", got)
	}
}
