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

package clustercheck

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
)

// WarningCounts counts the Warning events of every namespace seen since since, by
// reason; an event repeated by its series or count counts as often as it happened.
func WarningCounts(ctx context.Context, cs kubernetes.Interface, since time.Time) (map[string]int, error) {
	list, err := cs.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("type", corev1.EventTypeWarning).String(),
	})
	if err != nil {
		return nil, fmt.Errorf("listing Warning events: %w", err)
	}
	counts := map[string]int{}
	for _, e := range list.Items {
		if lastSeen(e).Before(since) {
			continue
		}
		n := int(e.Count)
		if e.Series != nil {
			n = int(e.Series.Count)
		}
		counts[e.Reason] += max(n, 1)
	}
	return counts, nil
}

// lastSeen is when an event last happened, whichever of its times is set.
func lastSeen(e corev1.Event) time.Time {
	t := e.LastTimestamp.Time
	if e.Series != nil && e.Series.LastObservedTime.After(t) {
		t = e.Series.LastObservedTime.Time
	}
	if e.EventTime.After(t) {
		t = e.EventTime.Time
	}
	if t.IsZero() {
		t = e.CreationTimestamp.Time
	}
	return t
}

// formatCounts shows counts as "Reason=n, ..." sorted by reason, "none" when empty.
func formatCounts(counts map[string]int) string {
	if len(counts) == 0 {
		return "none"
	}
	var parts []string
	for reason, n := range counts {
		parts = append(parts, fmt.Sprintf("%s=%d", reason, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
