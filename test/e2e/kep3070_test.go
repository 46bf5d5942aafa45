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

package e2e

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// dynamicSamples is how many Services each band spec creates to watch dynamic allocation.
const dynamicSamples = 12

var _ = ginkgo.Describe("Static ClusterIP band [KEP-3070]", ginkgo.Label("KEP-3070"), func() {
	ginkgo.It("allocates static ClusterIPs in each range's static band and keeps dynamic ones out of it", func(ctx context.Context) {
		f := clusterFacts(ctx)
		ns := testNamespace(ctx)
		used := usedClusterIPs(ctx)
		for _, p := range f.serviceRanges {
			band := clusterIPBand(p)
			if band == 0 {
				ginkgo.GinkgoWriter.Printf("range %s is too small for a static band\n", p)
				continue
			}
			ip := freeInBand(p, band, used)
			svc := clusterIPService(fmt.Sprintf("static-%s", familyName(p)))
			single := corev1.IPFamilyPolicySingleStack
			svc.Spec.IPFamilyPolicy, svc.Spec.IPFamilies, svc.Spec.ClusterIP = &single, []corev1.IPFamily{familyOf(p.Addr())}, ip.String()
			_, err := client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "static ClusterIP %s in the static band of %s (first %d addresses)", ip, p, band)
		}

		ranges := append(append([]netip.Prefix(nil), f.serviceRanges...), readyServiceCIDRPrefixes(ctx)...)
		policy := corev1.IPFamilyPolicyPreferDualStack
		for i := range dynamicSamples {
			svc := clusterIPService(fmt.Sprintf("dynamic-%d", i))
			svc.Spec.IPFamilyPolicy = &policy
			svc, err := client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			for _, ip := range svc.Spec.ClusterIPs {
				addr := netip.MustParseAddr(ip)
				in := containing(ranges, addr)
				gomega.Expect(in).NotTo(gomega.BeEmpty(), "dynamic ClusterIP %s outside every range %v", ip, ranges)
				p := in[0]
				gomega.Expect(indexIn(p, addr)).To(gomega.BeNumerically(">=", clusterIPBand(p)),
					"dynamic ClusterIP %s lies in the static band of %s (its first %d addresses)", ip, p, clusterIPBand(p))
			}
		}
	})
})

// freeInBand picks the highest address of p's static band that no Service holds, so it
// stays clear of the low addresses clusters hand out by hand (e.g. kube-dns's .10).
func freeInBand(p netip.Prefix, band uint64, used map[netip.Addr]bool) netip.Addr {
	for i := band; i > 0; i-- {
		if a := addrAt(p, i-1); !used[a] {
			return a
		}
	}
	ginkgo.Skip(fmt.Sprintf("every address in the static band of %s is taken", p))
	return netip.Addr{}
}

// familyName is "ipv4" or "ipv6", for object names.
func familyName(p netip.Prefix) string {
	if p.Addr().Is4() {
		return "ipv4"
	}
	return "ipv6"
}

var _ = ginkgo.Describe("Static NodePort band [KEP-3668]", ginkgo.Label("KEP-3668"), func() {
	ginkgo.It("allocates a static NodePort in the static band and keeps dynamic ones out of it", func(ctx context.Context) {
		f := clusterFacts(ctx)
		band := nodePortBand(f.nodePortSize)
		if band == 0 {
			ginkgo.Skip(fmt.Sprintf("the NodePort range %d-%d is too small for a static band", f.nodePortBase, f.nodePortBase+f.nodePortSize-1))
		}
		ns := testNamespace(ctx)
		used := usedNodePorts(ctx)
		if f.nodePortSize-band-len(used) < 2*dynamicSamples {
			ginkgo.Skip(fmt.Sprintf("the NodePort range's dynamic band has fewer than %d free ports", 2*dynamicSamples))
		}
		static := 0
		for port := f.nodePortBase + band - 1; port >= f.nodePortBase && static == 0; port-- {
			if !used[port] {
				static = port
			}
		}
		if static == 0 {
			ginkgo.Skip("every NodePort of the static band is taken")
		}
		svc := clusterIPService("static-nodeport")
		svc.Spec.Type = corev1.ServiceTypeNodePort
		svc.Spec.Ports[0].NodePort = int32(static)
		_, err := client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "static NodePort %d in the static band %d-%d", static, f.nodePortBase, f.nodePortBase+band-1)

		for i := range dynamicSamples {
			svc := clusterIPService(fmt.Sprintf("dynamic-nodeport-%d", i))
			svc.Spec.Type = corev1.ServiceTypeNodePort
			svc, err := client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			port := int(svc.Spec.Ports[0].NodePort)
			gomega.Expect(port).To(gomega.BeNumerically(">=", f.nodePortBase+band),
				"dynamic NodePort %d lies in the static band %d-%d", port, f.nodePortBase, f.nodePortBase+band-1)
			gomega.Expect(port).To(gomega.BeNumerically("<", f.nodePortBase+f.nodePortSize))
		}

		// A static NodePort already taken is refused, by upstream's words.
		dup := clusterIPService("taken-nodeport")
		dup.Spec.Type = corev1.ServiceTypeNodePort
		dup.Spec.Ports[0].NodePort = int32(static)
		_, err = client.CoreV1().Services(ns).Create(ctx, dup, metav1.CreateOptions{})
		gomega.Expect(apierrors.IsInvalid(err)).To(gomega.BeTrue(), "a second Service asking for NodePort %d: %v", static, err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("provided port is already allocated"))
	})
})
