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
	"net/netip"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/featuregate"

	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/test/integration/framework"
)

// Band edges the KEPs give for the ranges these tests use.
const (
	// bitmapCIDR is a /24: KEP-3070 gives it a static band of 16 addresses, .1 to .16.
	bitmapCIDR      = "10.96.0.0/24"
	lastStaticIP    = "10.96.0.16"
	upperBandIPs    = 254 - 16
	nodePortRange   = "30000-30099"
	lastStaticPort  = 30015 // KEP-3668: min(max(16, 100/32), 128) = 16 static ports
	upperBandPorts  = 100 - 16
	concurrentTotal = 500
)

func bitmapMode() framework.Option {
	return framework.WithFeatureGates(map[featuregate.Feature]bool{features.MultiCIDRServiceAllocator: false})
}

func bitmapFlags() framework.Option {
	return framework.WithFlags("--service-cluster-ip-range="+bitmapCIDR, "--service-node-port-range="+nodePortRange)
}

func nodePortService(name string) *corev1.Service {
	svc := clusterIPService(name)
	svc.Spec.Type = corev1.ServiceTypeNodePort
	return svc
}

// TestBitmapBands checks, through the API with MultiCIDRServiceAllocator off,
// that dynamic ClusterIPs and NodePorts fill the upper band before touching the
// static band, that a static request into either band works, and that the whole
// range is usable before the range reports full.
func TestBitmapBands(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, bitmapMode(), bitmapFlags())
	staticIPEnd := mustAddr(t, lastStaticIP)

	// a static request into the static band and one into the dynamic band
	static := clusterIPService("static-low")
	static.Spec.ClusterIP = "10.96.0.5"
	createService(ctx, t, s.Client, static)
	high := nodePortService("static-high")
	high.Spec.ClusterIP = "10.96.0.200"
	high.Spec.Ports[0].NodePort = 30090
	createService(ctx, t, s.Client, high)

	// The kubernetes Service holds 10.96.0.1 (static band), static-high holds one
	// upper-band IP and port: every other upper-band value goes first.
	for i := 0; i < upperBandIPs-1; i++ {
		svc := clusterIPService(fmt.Sprintf("ip-%d", i))
		if i < upperBandPorts-1 {
			svc = nodePortService(svc.Name)
		}
		created := createService(ctx, t, s.Client, svc)
		if ip := mustAddr(t, created.Spec.ClusterIP); ip.Compare(staticIPEnd) <= 0 {
			t.Fatalf("dynamic ClusterIP %d is %s, in the static band (<= %s), while the upper band still has room", i, ip, lastStaticIP)
		}
		if created.Spec.Type == corev1.ServiceTypeNodePort && created.Spec.Ports[0].NodePort <= lastStaticPort {
			t.Fatalf("dynamic NodePort %d is %d, in the static band (<= %d), while the upper band still has room", i, created.Spec.Ports[0].NodePort, lastStaticPort)
		}
	}

	// upper bands are full: the next dynamic allocations come from the static bands
	next := createService(ctx, t, s.Client, nodePortService("after-upper-band"))
	if ip := mustAddr(t, next.Spec.ClusterIP); ip.Compare(staticIPEnd) > 0 {
		t.Errorf("ClusterIP after the upper band is full is %s, want one in the static band", ip)
	}
	if port := next.Spec.Ports[0].NodePort; port > lastStaticPort {
		t.Errorf("NodePort after the upper band is full is %d, want one in the static band", port)
	}
}

// TestBitmapRestartKeepsAllocations restarts the apiserver on the same etcd and
// checks the bitmaps it reloads keep every allocation: nothing is handed out twice.
func TestBitmapRestartKeepsAllocations(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	first := framework.StartAPIServer(t, bitmapMode(), bitmapFlags(), framework.WithEtcdPrefix(prefix))
	seenIPs, seenPorts := map[string]string{}, map[int32]string{}
	record := func(svc *corev1.Service) {
		t.Helper()
		if other, dup := seenIPs[svc.Spec.ClusterIP]; dup {
			t.Fatalf("ClusterIP %s handed to %s and %s", svc.Spec.ClusterIP, other, svc.Name)
		}
		seenIPs[svc.Spec.ClusterIP] = svc.Name
		if port := svc.Spec.Ports[0].NodePort; port != 0 {
			if other, dup := seenPorts[port]; dup {
				t.Fatalf("NodePort %d handed to %s and %s", port, other, svc.Name)
			}
			seenPorts[port] = svc.Name
		}
	}
	for i := 0; i < 40; i++ {
		record(createService(ctx, t, first.Client, nodePortService(fmt.Sprintf("before-%d", i))))
	}
	first.Stop()

	second := framework.StartAPIServer(t, bitmapMode(), bitmapFlags(), framework.WithEtcdPrefix(prefix))
	for i := 0; i < 60; i++ {
		record(createService(ctx, t, second.Client, nodePortService(fmt.Sprintf("after-%d", i))))
	}
}

// TestBitmapConcurrentApiservers runs two netfork apiservers in bitmap mode on
// one etcd and creates Services through both at once: the shared bitmaps must
// never hand one ClusterIP or NodePort to two Services. (Upstream's 1.37
// binary cannot take the second seat: it locks MultiCIDRServiceAllocator to true
// and refuses to emulate 1.33, the last version where the gate was unlocked.)
func TestBitmapConcurrentApiservers(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	flags := framework.WithFlags("--service-cluster-ip-range=10.96.0.0/20", "--service-node-port-range=30000-32767")
	servers := []*framework.APIServer{
		framework.StartAPIServer(t, bitmapMode(), flags, framework.WithEtcdPrefix(prefix)),
		framework.StartAPIServer(t, bitmapMode(), flags, framework.WithEtcdPrefix(prefix)),
	}

	createConcurrently(ctx, t, servers, concurrentTotal)
	assertUniqueAllocations(ctx, t, servers[0], concurrentTotal)
}

// assertUniqueAllocations checks want Services besides kubernetes exist and no
// two hold the same ClusterIP or NodePort.
func assertUniqueAllocations(ctx context.Context, t *testing.T, s *framework.APIServer, want int) {
	t.Helper()
	list, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing Services: %v", err)
	}
	ips, ports := map[netip.Addr]string{}, map[int32]string{}
	created := 0
	for _, svc := range list.Items {
		if svc.Name == "kubernetes" {
			continue
		}
		created++
		ip := mustAddr(t, svc.Spec.ClusterIP)
		if other, dup := ips[ip]; dup {
			t.Errorf("ClusterIP %s held by %s and %s", ip, other, svc.Name)
		}
		ips[ip] = svc.Name
		port := svc.Spec.Ports[0].NodePort
		if other, dup := ports[port]; dup {
			t.Errorf("NodePort %d held by %s and %s", port, other, svc.Name)
		}
		ports[port] = svc.Name
	}
	if created != want {
		t.Errorf("%d Services exist, want %d", created, want)
	}
}

// createConcurrently creates total NodePort Services with 50 workers, each
// Service through the next apiserver in turn.
func createConcurrently(ctx context.Context, t *testing.T, servers []*framework.APIServer, total int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, total)
	work := make(chan int)
	for w := 0; w < 50; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				s := servers[i%len(servers)]
				if _, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, nodePortService(fmt.Sprintf("svc-%d", i)), metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("creating svc-%d through apiserver %d: %w", i, i%len(servers), err)
				}
			}
		}()
	}
	for i := 0; i < total; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
