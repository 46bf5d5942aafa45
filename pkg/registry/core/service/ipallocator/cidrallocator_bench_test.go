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

package ipallocator

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	networkingv1client "k8s.io/client-go/kubernetes/typed/networking/v1"
	upstreamipallocator "k8s.io/kubernetes/pkg/registry/core/service/ipallocator"

	"github.com/netfork/netfork/pkg/registry/networking/ipaddressindex"
)

// benchScenario is one point of the KEP-1880 allocator benchmark: cidrs
// ServiceCIDRs (the first, oldest, large enough to hold used addresses) and
// used IPAddresses already there.
type benchScenario struct {
	first string
	cidrs int
	used  int
}

func (s benchScenario) String() string {
	// No slash inside a level, so -bench can select one.
	return fmt.Sprintf("%s/cidrs=%d/used=%d", strings.ReplaceAll(s.first, "/", "_"), s.cidrs, s.used)
}

var benchScenarios = []benchScenario{
	{"10.0.0.0/12", 1, 10_000}, {"10.0.0.0/12", 1, 100_000},
	{"10.0.0.0/12", 100, 10_000}, {"10.0.0.0/12", 100, 100_000},
	{"10.0.0.0/12", 1000, 10_000}, {"10.0.0.0/12", 1000, 100_000},
	{"fd00:10:96::/64", 1, 10_000}, {"fd00:10:96::/64", 1, 100_000},
}

// objects are the ServiceCIDRs and IPAddresses of s: the used addresses from
// the start of the first CIDR, the other CIDRs /24s (or /120s) elsewhere.
func (s benchScenario) objects() []k8sruntime.Object {
	first := netip.MustParsePrefix(s.first)
	objs := []k8sruntime.Object{serviceCIDR("kubernetes", 0, s.first)}
	for i := 1; i < s.cidrs; i++ {
		var cidr string
		if first.Addr().Is4() {
			cidr = fmt.Sprintf("10.%d.%d.0/24", 64+i/256, i%256)
		} else {
			cidr = fmt.Sprintf("fd00:20:%x::/120", i)
		}
		objs = append(objs, serviceCIDR(fmt.Sprintf("extra-%d", i), i, cidr))
	}
	for _, ip := range ipsOf(s.first, s.used) {
		objs = append(objs, ipAddressFor(ip, "svc-"+ip))
	}
	return objs
}

// benchClient is a fake clientset listing objs; benchNetworking is its
// networking client with IPAddress writes that cost nothing, so the benchmark
// times the allocators, not the fake's object tracker.
func benchClient(objs []k8sruntime.Object) *fake.Clientset {
	return fake.NewClientset(objs...)
}

type benchNetworking struct {
	networkingv1client.NetworkingV1Interface
}

func (n benchNetworking) IPAddresses() networkingv1client.IPAddressInterface {
	return benchIPAddresses{n.NetworkingV1Interface.IPAddresses()}
}

type benchIPAddresses struct {
	networkingv1client.IPAddressInterface
}

func (benchIPAddresses) Create(_ context.Context, ipa *networkingv1.IPAddress, _ metav1.CreateOptions) (*networkingv1.IPAddress, error) {
	return ipa, nil
}

func (benchIPAddresses) Delete(context.Context, string, metav1.DeleteOptions) error { return nil }

func startInformers(b *testing.B, factory informers.SharedInformerFactory) {
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	b.Cleanup(func() {
		cancel()
		factory.Shutdown()
	})
	factory.WaitForCacheSync(ctx.Done())
}

// BenchmarkAllocateNextRelease allocates (reserve + commit) and releases one
// ClusterIP per op, netfork's CIDRAllocator beside upstream's MetaAllocator on
// the same fixture.
func BenchmarkAllocateNextRelease(b *testing.B) {
	for _, s := range benchScenarios {
		objs := s.objects()
		svc := service("bench")
		b.Run("netfork/"+s.String(), func(b *testing.B) {
			alloc := newBenchAllocator(b, s, objs)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				ip, err := alloc.AllocateNext()
				if err != nil {
					b.Fatal(err)
				}
				ips := []string{ip.String()}
				if err := alloc.Commit(ctx, svc, ips); err != nil {
					b.Fatal(err)
				}
				if err := alloc.Release(ip); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("netfork-reserve-only/"+s.String(), func(b *testing.B) {
			alloc := newBenchAllocator(b, s, objs)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				ip, err := alloc.AllocateNext()
				if err != nil {
					b.Fatal(err)
				}
				if err := alloc.Release(ip); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("upstream/"+s.String(), func(b *testing.B) {
			client := benchClient(objs)
			factory := informers.NewSharedInformerFactory(client, 0)
			alloc, err := upstreamipallocator.NewMetaAllocator(benchNetworking{client.NetworkingV1()},
				factory.Networking().V1().ServiceCIDRs(), factory.Networking().V1().IPAddresses(),
				netip.MustParsePrefix(s.first).Addr().Is6(), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(alloc.Destroy)
			startInformers(b, factory)
			waitUsed(b, alloc.Used, s.used)
			if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
				_, err := alloc.DryRun().AllocateNext()
				return err == nil, nil
			}); err != nil {
				b.Fatal("upstream's allocator never became ready")
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				ip, err := alloc.AllocateNextService(svc)
				if err != nil {
					b.Fatal(err)
				}
				if err := alloc.Release(ip); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// newBenchAllocator is a synced CIDRAllocator over objs with free IPAddress writes.
func newBenchAllocator(b *testing.B, s benchScenario, objs []k8sruntime.Object) *CIDRAllocator {
	client := benchClient(objs)
	factory := informers.NewSharedInformerFactory(client, 0)
	index := ipaddressindex.New(client)
	alloc, err := NewCIDRAllocator(CIDRConfig{
		FlagCIDR:     *mustCIDR(b, s.first),
		Writer:       benchNetworking{client.NetworkingV1()}.IPAddresses(),
		ServiceCIDRs: factory.Networking().V1().ServiceCIDRs(),
		IPAddresses:  index,
		Services:     factory.Core().V1().Services().Informer(),
		Rand:         rand.NewPCG(1, 2),
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(alloc.Destroy)
	startInformers(b, factory)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	index.Start(ctx)
	waitUsed(b, alloc.Used, s.used)
	return alloc
}

func waitUsed(b *testing.B, used func() int, want int) {
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return used() >= want, nil
	}); err != nil {
		b.Fatalf("the allocator sees %d used addresses, want %d", used(), want)
	}
}

// BenchmarkIndexMemoryPerAddress reports the index's heap bytes per used
// address (B/addr) once 100k addresses are in it.
func BenchmarkIndexMemoryPerAddress(b *testing.B) {
	for _, first := range []string{"10.0.0.0/12", "fd00:10:96::/64"} {
		b.Run(strings.ReplaceAll(first, "/", "_"), func(b *testing.B) {
			const n = 100_000
			addrs := make([]netip.Addr, 0, n)
			for _, s := range ipsOf(first, n) {
				addrs = append(addrs, netip.MustParseAddr(s))
			}
			var perAddr float64
			for b.Loop() {
				before := heapInUse()
				x := newCIDRIndex(netip.MustParsePrefix(first).Addr().Is6(), rand.NewPCG(1, 2))
				x.setCIDRs([]cidrSpec{{prefix: netip.MustParsePrefix(first), ready: true}})
				for _, a := range addrs {
					x.add(a, stateObject)
				}
				perAddr = float64(heapInUse()-before) / n
				runtime.KeepAlive(x)
			}
			b.ReportMetric(perAddr, "B/addr")
		})
	}
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
