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

package controlplane

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/test/integration/framework"
)

// bitmapOnlyReason is the Warning event netfork's IPAddress repair loop
// records when a bitmap-only apiserver allocates in its cluster.
const bitmapOnlyReason = "BitmapOnlyAPIServerDetected"

// TestBitmapOnlyBesideIPAddressesIsReported runs a bitmap-only apiserver
// (MultiCIDRServiceAllocator=false) beside one that allocates IPAddresses
// without writing the bitmaps, the mix KEP-1880 calls unsafe, on one etcd:
// as soon as a Service the bitmap-only one created reaches the other's repair
// loop, that loop says so, naming the fix.
func TestBitmapOnlyBesideIPAddressesIsReported(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	flags := framework.WithFlags("--service-cluster-ip-range=10.104.0.0/20")
	bitmapOnly := framework.StartNetforkProcess(t, allocatorGates(false, true), flags, framework.WithEtcdPrefix(prefix))
	ipAddresses := framework.StartAPIServer(t, flags, framework.WithEtcdPrefix(prefix))

	// The bitmap-only apiserver allocated these and its kubernetes Service; the
	// loop reports whichever it repairs first (one event per interval). Which one
	// depends on whether the kubernetes Service was created before the other
	// apiserver started, so any of them will do.
	allocated := []string{"kubernetes"}
	for i := range 5 {
		svc := createService(ctx, t, bitmapOnly.Client, clusterIPService(fmt.Sprintf("from-bitmap-%d", i)))
		allocated = append(allocated, svc.Name)
	}
	err := waitRepairEventAbout(ctx, ipAddresses.Client, "Service", bitmapOnlyReason, allocated...)
	if err != nil {
		t.Fatalf("no %s event from the repair loop about any of %v: %v", bitmapOnlyReason, allocated, err)
	}
	if n := countEvents(ctx, t, ipAddresses.Client, bitmapOnlyReason); n != 1 {
		t.Errorf("%d %s events, want one per repair interval", n, bitmapOnlyReason)
	}
}

// TestDualWriteBesideIPAddressesIsNotReported runs KEP-1880's last migration
// step: an apiserver that dual-writes beside one that does not, which is safe.
// A Service stored with no IPAddress, which the repair loop must repair, is
// the sign it has seen every Service created before it; then no warning is
// allowed.
func TestDualWriteBesideIPAddressesIsNotReported(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	flags := framework.WithFlags("--service-cluster-ip-range=10.105.0.0/20")
	dualWrite := framework.StartAPIServer(t, allocatorGates(true, false), flags, framework.WithEtcdPrefix(prefix))
	ipAddresses := framework.StartAPIServer(t, flags, framework.WithEtcdPrefix(prefix))

	for i := range 20 {
		createService(ctx, t, dualWrite.Client, clusterIPService(fmt.Sprintf("from-dual-write-%d", i)))
	}
	// The sentinel's address is in the range's static band (its lower 256 addresses for a
	// /20, KEP-3070), which dynamic allocation takes from only once the upper band is full:
	// 20 Services never reach it, so no Service above can hold it too (10.105.15.200, in
	// the upper band, once went to from-dual-write-18 and the loop rightly reported
	// ClusterIPAlreadyAllocated instead).
	sentinel := storeService(ctx, t, etcdClient(t), prefix, "sentinel", "10.105.0.200")
	waitRepairEvent(ctx, t, ipAddresses.Client, "Service", sentinel.Name, "ClusterIPNotAllocated")
	if n := countEvents(ctx, t, ipAddresses.Client, bitmapOnlyReason); n != 0 {
		t.Errorf("%d %s events with no bitmap-only apiserver", n, bitmapOnlyReason)
	}
}

// countEvents counts the events with reason in the default namespace.
func countEvents(ctx context.Context, t *testing.T, client kubernetes.Interface, reason string) int {
	t.Helper()
	events, err := client.EventsV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing events: %v", err)
	}
	n := 0
	for _, e := range events.Items {
		if e.Reason == reason {
			n++
		}
	}
	return n
}
