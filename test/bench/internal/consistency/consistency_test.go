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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/netfork/netfork/test/internal/clustercheck"

	"github.com/netfork/netfork/test/bench/internal/ranges"
	"github.com/netfork/netfork/test/bench/internal/workload"
)

func TestCheck(t *testing.T) {
	ipMode := Expectations{Services: 2, IPAddresses: true}
	dualWrite := Expectations{Services: 2, IPAddresses: true, ClusterIPBitmap: true}
	tests := []struct {
		name    string
		objects func() []runtime.Object
		bitmaps func(t *testing.T) fakeBitmaps
		expect  Expectations
		// want are substrings of the problems, one each; none means consistent.
		want []string
	}{{
		name:    "consistent IPAddress mode",
		objects: consistentObjects,
		bitmaps: consistentBitmaps,
		expect:  ipMode,
	}, {
		name:    "consistent dual-write",
		objects: consistentObjects,
		bitmaps: consistentBitmaps,
		expect:  dualWrite,
	}, {
		name:    "a Service is missing",
		objects: consistentObjects,
		bitmaps: consistentBitmaps,
		expect:  Expectations{Services: 3, IPAddresses: true},
		want:    []string{"holds 2 Services, want 3"},
	}, {
		name: "a ClusterIP without its IPAddress",
		objects: func() []runtime.Object {
			return append(consistentObjects()[:5:5], consistentObjects()[5+1:]...)
		},
		bitmaps: consistentBitmaps,
		expect:  ipMode,
		want:    []string{"ClusterIP 10.96.0.11 of Service bench/svc-000001 has no IPAddress"},
	}, {
		name: "an orphaned IPAddress",
		objects: func() []runtime.Object {
			return append(consistentObjects(), testIPAddress("10.96.0.99", workload.Namespace, "gone"))
		},
		bitmaps: consistentBitmaps,
		expect:  ipMode,
		want:    []string{"IPAddress 10.96.0.99 is orphaned"},
	}, {
		name: "an IPAddress whose parent holds another address",
		objects: func() []runtime.Object {
			objects := consistentObjects()
			objects[5] = testIPAddress("10.96.0.11", workload.Namespace, "svc-000000")
			return objects
		},
		bitmaps: consistentBitmaps,
		expect:  ipMode,
		want:    []string{"IPAddress 10.96.0.11 is orphaned: its parent Service bench/svc-000000 does not hold it"},
	}, {
		name: "a duplicate ClusterIP",
		objects: func() []runtime.Object {
			return append(consistentObjects(), testService(metav1.NamespaceDefault, "copy", "10.96.0.10", 0))
		},
		bitmaps: consistentBitmaps,
		expect:  Expectations{Services: 2},
		want:    []string{"ClusterIP 10.96.0.10 is held by Services"},
	}, {
		name: "a duplicate NodePort",
		objects: func() []runtime.Object {
			return append(consistentObjects(), testService(metav1.NamespaceDefault, "copy", "None", 30001))
		},
		bitmaps: consistentBitmaps,
		expect:  Expectations{Services: 2},
		want:    []string{"NodePort 30001 is held by Services"},
	}, {
		name: "a NodePort Service without its nodePort",
		objects: func() []runtime.Object {
			objects := consistentObjects()
			svc := testService(workload.Namespace, "svc-000001", "10.96.0.11", 0)
			svc.Spec.Type = "NodePort"
			objects[2] = svc
			return objects
		},
		bitmaps: func(t *testing.T) fakeBitmaps {
			b := consistentBitmaps(t)
			b[nodePortBitmapKey] = nodePortBitmap()
			return b
		},
		expect: ipMode,
		want:   []string{"NodePort Service bench/svc-000001 port 80 has no nodePort"},
	}, {
		name:    "a ClusterIP the bitmap does not mark",
		objects: consistentObjects,
		bitmaps: func(t *testing.T) fakeBitmaps {
			b := consistentBitmaps(t)
			b[clusterIPBitmapKey] = clusterIPBitmap(t, ranges.KubernetesServiceIP, "10.96.0.10")
			return b
		},
		expect: dualWrite,
		want:   []string{"ClusterIP 10.96.0.11 of Service bench/svc-000001 is not marked", "marks 2 addresses, Services hold 3"},
	}, {
		name:    "a leaked bitmap mark",
		objects: consistentObjects,
		bitmaps: func(t *testing.T) fakeBitmaps {
			b := consistentBitmaps(t)
			b[clusterIPBitmapKey] = clusterIPBitmap(t, ranges.KubernetesServiceIP, "10.96.0.10", "10.96.0.11", "10.96.7.7")
			return b
		},
		expect: dualWrite,
		want:   []string{"marks 4 addresses, Services hold 3"},
	}, {
		name:    "a leaked NodePort",
		objects: consistentObjects,
		bitmaps: func(t *testing.T) fakeBitmaps {
			b := consistentBitmaps(t)
			b[nodePortBitmapKey] = nodePortBitmap(30001, 30002)
			return b
		},
		expect: ipMode,
		want:   []string{"NodePort bitmap marks 2 ports, Services hold 1"},
	}, {
		name:    "no bitmap where one is kept",
		objects: consistentObjects,
		bitmaps: func(*testing.T) fakeBitmaps { return fakeBitmaps{} },
		expect:  dualWrite,
		want:    []string{"no ClusterIP bitmap", "no NodePort bitmap"},
	}, {
		name: "headless floor",
		objects: func() []runtime.Object {
			return []runtime.Object{
				testService(metav1.NamespaceDefault, "kubernetes", ranges.KubernetesServiceIP, 0),
				testIPAddress(ranges.KubernetesServiceIP, metav1.NamespaceDefault, "kubernetes"),
				testService(workload.Namespace, "svc-000000", "None", 0),
				testService(workload.Namespace, "svc-000001", "10.96.0.11", 0),
				testIPAddress("10.96.0.11", workload.Namespace, "svc-000001"),
			}
		},
		bitmaps: func(*testing.T) fakeBitmaps { return fakeBitmaps{nodePortBitmapKey: nodePortBitmap()} },
		expect:  Expectations{Services: 2, Headless: true, IPAddresses: true},
		want:    []string{"Service bench/svc-000001 should be headless"},
	}, {
		name: "after deleting",
		objects: func() []runtime.Object {
			return consistentObjects()[:1:1]
		},
		bitmaps: func(t *testing.T) fakeBitmaps {
			return fakeBitmaps{clusterIPBitmapKey: clusterIPBitmap(t, ranges.KubernetesServiceIP), nodePortBitmapKey: nodePortBitmap()}
		},
		expect: Expectations{Services: 0, IPAddresses: true, ClusterIPBitmap: true},
		want:   []string{"ClusterIP 10.96.0.1 of Service default/kubernetes has no IPAddress"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check(snapshotOf(t, tt.objects(), tt.bitmaps(t)), tt.expect)
			if len(got) != len(tt.want) {
				t.Fatalf("check found %d problems %q, want %d matching %q", len(got), got, len(tt.want), tt.want)
			}
			for _, want := range tt.want {
				if !containsSubstring(got, want) {
					t.Errorf("problems %q lack %q", got, want)
				}
			}
		})
	}
}

func TestCheckBoundsProblems(t *testing.T) {
	objects := consistentObjects()
	for i := range 2 * clustercheck.MaxProblems {
		objects = append(objects, testIPAddress(netipAt(i), workload.Namespace, "gone"))
	}
	got := Check(snapshotOf(t, objects, consistentBitmaps(t)), Expectations{Services: 2, IPAddresses: true})
	if len(got) != clustercheck.MaxProblems+1 || !strings.HasPrefix(got[clustercheck.MaxProblems], "... and 20 more") {
		t.Fatalf("check returned %d problems ending %q, want %d and a count of the rest", len(got), got[len(got)-1], clustercheck.MaxProblems+1)
	}
}

// netipAt is a distinct address outside every fixture's.
func netipAt(i int) string {
	return ranges.ExtraCIDR(i).Addr().Next().String()
}

func containsSubstring(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
