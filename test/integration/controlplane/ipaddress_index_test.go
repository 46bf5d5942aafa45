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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/netfork/netfork/pkg/controlplane/controller/servicecidrtest"
	"github.com/netfork/netfork/test/integration/framework"
)

// TestIPAddressIndexInSkew checks netfork's IPAddress index (which the
// allocator's counts, shown in the ServiceCIDR table, are made from) against
// the IPAddresses an upstream apiserver sharing the etcd writes and deletes,
// with and without a watch cache: while netfork runs, and across a restart of
// netfork during which upstream wrote more.
func TestIPAddressIndexInSkew(t *testing.T) {
	const (
		name = "indexed"
		cidr = "10.101.0.0/24" // 254 usable addresses
	)
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"watch cache", nil},
		{"no watch cache", []string{"--watch-cache=false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			prefix := framework.NewEtcdPrefix(t)
			start := func() *framework.APIServer {
				return framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix), framework.WithFlags(tc.flags...))
			}
			netfork := start()
			upstream := framework.StartUpstreamAPIServer(t, framework.WithEtcdPrefix(prefix))
			createServiceCIDR(ctx, t, netfork.Client, name, cidr)
			servicecidrtest.Eventually(t, upstream.Client, name, "Ready=True", isReady)

			create := func(i int) {
				t.Helper()
				svc := clusterIPService(fmt.Sprintf("index-%d", i))
				svc.Spec.ClusterIP = fmt.Sprintf("10.101.0.%d", i)
				// upstream's allocator may not have seen the new ServiceCIDR yet
				var created *corev1.Service
				err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
					var err error
					created, err = upstream.Client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, svc, metav1.CreateOptions{})
					return err == nil, nil
				})
				if err != nil {
					t.Fatalf("upstream never created Service %s at %s: %v", svc.Name, svc.Spec.ClusterIP, err)
				}
				waitIPAddress(ctx, t, upstream.Client, created.Spec.ClusterIP, created)
			}
			remove := func(i int) {
				t.Helper()
				if err := upstream.Client.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, fmt.Sprintf("index-%d", i), metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			for i := 1; i <= 6; i++ {
				create(i)
			}
			waitUsageCells(ctx, t, netfork.Client, name, "6", "248")
			remove(1)
			remove(2)
			waitUsageCells(ctx, t, netfork.Client, name, "4", "250")

			netfork.Stop()
			create(7)
			create(8)
			remove(3)
			netfork = start()
			waitUsageCells(ctx, t, netfork.Client, name, "5", "249")
			create(9)
			waitUsageCells(ctx, t, netfork.Client, name, "6", "248")
			remove(4)
			remove(5)
			waitUsageCells(ctx, t, netfork.Client, name, "4", "250")
		})
	}
}
