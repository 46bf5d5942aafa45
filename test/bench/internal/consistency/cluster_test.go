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

package consistency

import (
	"context"
	"strings"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/netfork/netfork/test/bench/internal/workload"
)

// testEndpointSlice is the EndpointSlice kube-controller-manager writes for a Service.
func testEndpointSlice(name, service string) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{
		Namespace: workload.Namespace, Name: name,
		Labels: map[string]string{discoveryv1.LabelServiceName: service},
	}}
}

func TestCheckCluster(t *testing.T) {
	withSlices := func() []runtime.Object {
		return append(consistentObjects(), testEndpointSlice("svc-000000-abcde", "svc-000000"), testEndpointSlice("svc-000001-fghij", "svc-000001"))
	}
	tests := []struct {
		name     string
		objects  []runtime.Object
		services int
		want     []string
	}{
		{"consistent, a slice per Service", withSlices(), 2, nil},
		{"a Service is missing", withSlices(), 3, []string{"holds 2 Services, want 3"}},
		{"a slice outlives its Service", append(withSlices(), testEndpointSlice("svc-000007-zzzzz", "svc-000007")), 2,
			[]string{`EndpointSlice bench/svc-000007-zzzzz outlives its Service "svc-000007"`}},
		{"an orphaned IPAddress", append(withSlices(), testIPAddress("10.96.0.99", workload.Namespace, "svc-000009")), 2,
			[]string{"IPAddress 10.96.0.99 is orphaned"}},
		{"a ClusterIP held twice", append(withSlices(), testService(workload.Namespace, "svc-000002", "10.96.0.10", 0)), 3,
			[]string{"ClusterIP 10.96.0.10 is held by Services"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := TakeClusterSnapshot(context.Background(), fake.NewClientset(tt.objects...))
			if err != nil {
				t.Fatal(err)
			}
			got := CheckCluster(s, tt.services)
			if len(got) != len(tt.want) {
				t.Fatalf("CheckCluster = %q, want %d problem(s) %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

func TestCheckClusterSettledGivesUpAtItsTimeout(t *testing.T) {
	objects := append(consistentObjects(), testEndpointSlice("svc-000007-zzzzz", "svc-000007"))
	problems, _, err := CheckClusterSettled(context.Background(), fake.NewClientset(objects...), 2, 0)
	if err != nil || len(problems) != 1 {
		t.Fatalf("CheckClusterSettled with a stale slice = %q, %v; want its one problem", problems, err)
	}
	problems, _, err = CheckClusterSettled(context.Background(), fake.NewClientset(consistentObjects()...), 2, 0)
	if err != nil || problems != nil {
		t.Errorf("CheckClusterSettled of a consistent cluster = %q, %v; want nothing", problems, err)
	}
}
