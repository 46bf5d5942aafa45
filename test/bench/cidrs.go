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

package main

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const (
	// extraCIDRBase is the /12 the extra ServiceCIDRs are carved from, disjoint from serviceCIDR.
	extraCIDRBase = "10.128.0.0"
	// extraCIDRBits is each extra ServiceCIDR's prefix length: 254 addresses, small as the
	// issue asks, and 1000 of them still fit in extraCIDRBase's /12.
	extraCIDRBits = 24
	// probeServiceName is the Service that shows the allocator knows every extra range.
	probeServiceName = "cidr-probe"
)

// extraCIDR is the i-th extra ServiceCIDR's range: 10.128.0.0/24, 10.128.1.0/24, ...
func extraCIDR(i int) netip.Prefix {
	v := ipv4Uint(netip.MustParseAddr(extraCIDRBase)) + uint32(i)<<(32-extraCIDRBits)
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), extraCIDRBits)
}

// extraCIDRName names the i-th extra ServiceCIDR.
func extraCIDRName(i int) string {
	return fmt.Sprintf("bench-%04d", i)
}

// createExtraCIDRs creates k ServiceCIDRs with the run's workers.
func createExtraCIDRs(ctx context.Context, client kubernetes.Interface, k, workers int) error {
	p := runPhase(ctx, k, workers, 0, func(ctx context.Context, _, i int) error {
		cidr := &networkingv1.ServiceCIDR{
			ObjectMeta: metav1.ObjectMeta{Name: extraCIDRName(i)},
			Spec:       networkingv1.ServiceCIDRSpec{CIDRs: []string{extraCIDR(i).String()}},
		}
		_, err := client.NetworkingV1().ServiceCIDRs().Create(ctx, cidr, metav1.CreateOptions{})
		return err
	})
	if p.failures > 0 {
		return fmt.Errorf("creating %d extra ServiceCIDRs: %d failed, first: %w", k, p.failures, p.firstFailure)
	}
	return nil
}

// waitExtraCIDRsUsable returns once the allocator accepts an address of the last extra
// ServiceCIDR: a probe Service asks for one, and the allocator learns ranges from an
// informer in creation order, so it then knows every earlier range too.
func waitExtraCIDRsUsable(ctx context.Context, client kubernetes.Interface, k int, timeout time.Duration) error {
	ip := extraCIDR(k - 1).Addr().Next().String()
	probe := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: probeServiceName, Namespace: benchNamespace},
		Spec: corev1.ServiceSpec{
			ClusterIP: ip,
			Ports:     []corev1.ServicePort{{Protocol: corev1.ProtocolTCP, Port: 80}},
		},
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var lastErr error
	for {
		_, err := client.CoreV1().Services(benchNamespace).Create(ctx, probe, metav1.CreateOptions{})
		if err == nil {
			break
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("ServiceCIDR %s not usable after %s: probe Service with ClusterIP %s: %w", extraCIDR(k-1), timeout, ip, lastErr)
		case <-time.After(readyPollInterval):
		}
	}
	if err := client.CoreV1().Services(benchNamespace).Delete(ctx, probeServiceName, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting the probe Service: %w", err)
	}
	return nil
}

// ipv4Uint is an IPv4 address as a number, for carving ranges.
func ipv4Uint(addr netip.Addr) uint32 {
	b := addr.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
