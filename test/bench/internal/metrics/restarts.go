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
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// apiserverPods selects kubeadm's kube-apiserver static pods (their mirror pods).
const apiserverPods = "component=kube-apiserver"

// APIServerRestarts reads the restart count kubelet reports for each kube-apiserver pod,
// by pod name (kube-apiserver-<node>): how often its liveness probe or a crash restarted it.
func APIServerRestarts(ctx context.Context, client kubernetes.Interface) (map[string]int32, error) {
	pods, err := client.CoreV1().Pods(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{LabelSelector: apiserverPods})
	if err != nil {
		return nil, fmt.Errorf("listing kube-apiserver pods: %w", err)
	}
	restarts := map[string]int32{}
	for _, pod := range pods.Items {
		for _, status := range pod.Status.ContainerStatuses {
			restarts[pod.Name] += status.RestartCount
		}
	}
	return restarts, nil
}

// RestartsSince is how many restarts each pod had between two readings, for the pods
// that had any: a pod that was not in before (its static pod was replaced) counts from 0.
func RestartsSince(before, after map[string]int32) map[string]int32 {
	out := map[string]int32{}
	for name, a := range after {
		if d := a - before[name]; d > 0 {
			out[name] = d
		} else if d < 0 && a > 0 {
			out[name] = a
		}
	}
	return out
}
