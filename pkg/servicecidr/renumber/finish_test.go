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

package renumber

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// TestFinishCountsPodsOfTheCutOverSecond checks finish refuses while a pod
// created in the cut-over's second runs: the record keeps the cut-over to the
// second, and such a pod may have started before the kubernetes Service
// moved, holding its old address.
func TestFinishCountsPodsOfTheCutOverSecond(t *testing.T) {
	cut := time.Date(2026, 1, 1, 12, 0, 0, 600_000_000, time.UTC)
	st := &State{From: []string{"10.96.0.0/16"}, To: []string{"10.200.0.0/16"}, Phase: PhaseRenumbered, CutOver: &metav1.Time{Time: cut}}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	pod := func(name string, created time.Time) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: name, CreationTimestamp: metav1.NewTime(created)}}
	}
	for _, tc := range []struct {
		name    string
		created time.Time
		refused bool
	}{
		{"a second before", cut.Add(-time.Second), true},
		{"the same second, before the cut-over", cut.Add(-500 * time.Millisecond), true},
		{"the same second, after it", cut.Add(300 * time.Millisecond), true},
		{"the second after", cut.Add(time.Second), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: StateNamespace, Name: StateName}, Data: map[string]string{stateKey: string(data)}},
				pod("p", tc.created.Truncate(time.Second)), // the API keeps timestamps to the second
			)
			_, err := New(client, Options{}).Finish(context.Background())
			if refused := err != nil && strings.Contains(err.Error(), "apps/p"); refused != tc.refused {
				t.Errorf("finish with a pod created at %s, cut-over at %s: %v; want refused %t", tc.created, cut, err, tc.refused)
			}
		})
	}
}
