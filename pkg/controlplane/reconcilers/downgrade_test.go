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

package reconcilers

import (
	"context"
	"net"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestRemoveDecidesForTheApiserversLeft is a rolling downgrade's last step: the
// last netfork apiserver leaves while an upstream one is live. Its Remove says
// what the upstream apiserver calls for, which upstream's reconciler never acts
// on by itself: the Service's families.
func TestRemoveDecidesForTheApiserversLeft(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, corev1.IPv4Protocol, corev1.IPv6Protocol)
	nf, up := c.netfork(ipA, ip6A), c.upstream()
	if d := c.reconcile(nf); !d.DualStack() {
		t.Fatalf("netfork alone decided %s, want dual-stack", d.Shape)
	}
	if err := up.ReconcileEndpoints(ServiceName, net.ParseIP(ipB), httpsPorts, true); err != nil {
		t.Fatal(err)
	}
	nf.StopReconciling()
	d, err := nf.Remove(ctx, httpsPorts)
	if err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if d.Shape != ShapeUpstream || len(d.Members) != 1 || d.Members[0].Primary != ipB {
		t.Errorf("Remove decided %+v, want upstream's shape with %s as the only member", d, ipB)
	}
	wantNoIPv6Slice(t, c)

	// and the last apiserver of all leaving decides for nobody
	last := c.netfork(ipC, ip6C)
	c.reconcile(last)
	c.legacy.remove(ipB)
	last.StopReconciling()
	if d, err := last.Remove(ctx, httpsPorts); err != nil || len(d.Members) != 0 {
		t.Errorf("the last apiserver's Remove = %+v, %v; want no members", d, err)
	}
}
