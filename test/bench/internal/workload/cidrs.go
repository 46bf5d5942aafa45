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

package workload

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/test/bench/internal/ranges"
)

const (
	// probeServiceName is the Service that shows the allocator knows every extra range.
	probeServiceName = "cidr-probe"
	// probeInterval is how often the probe Service is tried again.
	probeInterval = 250 * time.Millisecond
)

// extraCIDRName names the i-th extra ServiceCIDR.
func extraCIDRName(i int) string {
	return fmt.Sprintf("bench-%04d", i)
}

// CreateExtraCIDRs creates k ServiceCIDRs with the run's workers.
func CreateExtraCIDRs(ctx context.Context, client kubernetes.Interface, k, workers int) error {
	p := runPhase(ctx, k, workers, 0, func(ctx context.Context, _, i int) error {
		cidr := &networkingv1.ServiceCIDR{
			ObjectMeta: metav1.ObjectMeta{Name: extraCIDRName(i)},
			Spec:       networkingv1.ServiceCIDRSpec{CIDRs: []string{ranges.ExtraCIDR(i).String()}},
		}
		_, err := client.NetworkingV1().ServiceCIDRs().Create(ctx, cidr, metav1.CreateOptions{})
		return err
	})
	if p.Failures > 0 {
		return fmt.Errorf("creating %d extra ServiceCIDRs: %d failed, first: %w", k, p.Failures, p.FirstFailure)
	}
	return nil
}

// WaitExtraCIDRsUsable returns once the allocator accepts an address of the last extra
// ServiceCIDR: a probe Service asks for one, and the allocator learns ranges from an
// informer in creation order, so it then knows every earlier range too.
func WaitExtraCIDRsUsable(ctx context.Context, client kubernetes.Interface, k int, timeout time.Duration) error {
	ip := ranges.ExtraCIDR(k - 1).Addr().Next().String()
	probe := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: probeServiceName, Namespace: Namespace},
		Spec: corev1.ServiceSpec{
			ClusterIP: ip,
			Ports:     []corev1.ServicePort{{Protocol: corev1.ProtocolTCP, Port: 80}},
		},
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var lastErr error
	for {
		_, err := client.CoreV1().Services(Namespace).Create(ctx, probe, metav1.CreateOptions{})
		if err == nil {
			break
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("ServiceCIDR %s not usable after %s: probe Service with ClusterIP %s: %w", ranges.ExtraCIDR(k-1), timeout, ip, lastErr)
		case <-time.After(probeInterval):
		}
	}
	if err := client.CoreV1().Services(Namespace).Delete(ctx, probeServiceName, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting the probe Service: %w", err)
	}
	return nil
}
