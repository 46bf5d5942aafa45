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
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/netfork/netfork/test/integration/framework"
)

// TestBitmapRepairFromCorruptEtcd corrupts the stored ClusterIP bitmap while the
// apiserver is down, first by clearing it and then with bytes that do not
// decode; each time the restarted apiserver's repair loop rebuilds it from the
// Services, emits ClusterIPNotAllocated for each Service it had lost, and no
// Service's address is handed out again.
func TestBitmapRepairFromCorruptEtcd(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	key := prefix + "/ranges/serviceips"
	etcd := etcdClient(t)

	s := framework.StartAPIServer(t, bitmapMode(), bitmapFlags(), framework.WithEtcdPrefix(prefix))
	var services []*corev1.Service
	for i := 0; i < 10; i++ {
		services = append(services, createService(ctx, t, s.Client, clusterIPService(fmt.Sprintf("before-%d", i))))
	}
	s.Stop()

	corruptions := []struct {
		name    string
		corrupt func(t *testing.T)
	}{
		{name: "bitmap cleared", corrupt: func(t *testing.T) {
			stored := readRangeAllocation(ctx, t, etcd, key)
			stored.Data = nil
			writeRangeAllocation(ctx, t, etcd, key, stored)
		}},
		{name: "bitmap undecodable", corrupt: func(t *testing.T) {
			if _, err := etcd.Put(ctx, key, "this is not a RangeAllocation"); err != nil {
				t.Fatalf("writing %s: %v", key, err)
			}
		}},
	}
	for round, c := range corruptions {
		t.Run(c.name, func(t *testing.T) {
			c.corrupt(t)
			s := framework.StartAPIServer(t, bitmapMode(), bitmapFlags(), framework.WithEtcdPrefix(prefix))

			// the start-up repair pass has run once the apiserver is ready
			stored := readRangeAllocation(ctx, t, etcd, key)
			for _, svc := range services {
				if !bitSet(t, stored, svc.Spec.ClusterIP) {
					t.Errorf("repaired bitmap does not hold %s of Service %s", svc.Spec.ClusterIP, svc.Name)
				}
			}
			waitEvents(ctx, t, s, "ClusterIPNotAllocated", services, round)

			held := map[string]bool{}
			for _, svc := range services {
				held[svc.Spec.ClusterIP] = true
			}
			for i := 0; i < 50; i++ {
				got := createService(ctx, t, s.Client, clusterIPService(fmt.Sprintf("after-%d-%d", round, i)))
				if held[got.Spec.ClusterIP] {
					t.Fatalf("ClusterIP %s handed out again after the repair", got.Spec.ClusterIP)
				}
				held[got.Spec.ClusterIP] = true
				services = append(services, got)
			}
			s.Stop()
		})
	}
}

// waitEvents waits until every Service of the first batch has an event with reason
// for this round (events accumulate across restarts).
func waitEvents(ctx context.Context, t *testing.T, s *framework.APIServer, reason string, services []*corev1.Service, round int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		events, err := s.Client.EventsV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		count := map[string]int{}
		for _, e := range events.Items {
			if e.Reason == reason && e.Regarding.Kind == "Service" {
				count[e.Regarding.Name]++
			}
		}
		for _, svc := range services[:10] {
			if count[svc.Name] < round+1 {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Errorf("not every Service got a %s event in round %d: %v", reason, round, err)
	}
}

func etcdClient(t *testing.T) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{framework.EtcdURL(t)}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("connecting to etcd: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// readRangeAllocation decodes the RangeAllocation the apiserver stored at key.
func readRangeAllocation(ctx context.Context, t *testing.T, etcd *clientv3.Client, key string) *corev1.RangeAllocation {
	t.Helper()
	resp, err := etcd.Get(ctx, key)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("reading %s: %v (%d keys)", key, err, len(resp.Kvs))
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(resp.Kvs[0].Value, nil, nil)
	if err != nil {
		t.Fatalf("decoding %s: %v", key, err)
	}
	ra, ok := obj.(*corev1.RangeAllocation)
	if !ok {
		t.Fatalf("%s holds a %T, want a RangeAllocation", key, obj)
	}
	return ra
}

// writeRangeAllocation stores ra at key the way the apiserver does (v1 protobuf).
func writeRangeAllocation(ctx context.Context, t *testing.T, etcd *clientv3.Client, key string, ra *corev1.RangeAllocation) {
	t.Helper()
	codec := scheme.Codecs.EncoderForVersion(protobuf.NewSerializer(scheme.Scheme, scheme.Scheme), corev1.SchemeGroupVersion)
	data, err := runtime.Encode(codec, ra)
	if err != nil {
		t.Fatalf("encoding %s: %v", key, err)
	}
	if _, err := etcd.Put(ctx, key, string(data)); err != nil {
		t.Fatalf("writing %s: %v", key, err)
	}
}

// bitSet reports whether ip's bit is set in ra, with upstream's layout: bit i of
// the big-endian data is the address network+1+i.
func bitSet(t *testing.T, ra *corev1.RangeAllocation, ip string) bool {
	t.Helper()
	prefix := mustPrefix(t, ra.Range)
	addr := mustAddr(t, ip)
	offset := addrDiff(prefix.Masked().Addr().Next(), addr)
	byteIndex := len(ra.Data) - 1 - offset/8
	if byteIndex < 0 {
		return false
	}
	return ra.Data[byteIndex]&(1<<(offset%8)) != 0
}

func addrDiff(from, to netip.Addr) int {
	a, b := from.As4(), to.As4()
	return int(uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3])) -
		int(uint32(a[0])<<24|uint32(a[1])<<16|uint32(a[2])<<8|uint32(a[3]))
}
