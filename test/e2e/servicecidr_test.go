package e2e

import (
	"context"
	"net/netip"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var _ = ginkgo.Describe("ClusterIP allocation [KEP-1880]", func() {
	ginkgo.It("backs every ClusterIP of a new Service with an IPAddress inside a ServiceCIDR", func(ctx context.Context) {
		_, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, "kubernetes", metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the default ServiceCIDR must exist")
		cidrs, err := client.NetworkingV1().ServiceCIDRs().List(ctx, metav1.ListOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		var prefixes []netip.Prefix
		for _, c := range cidrs.Items {
			for _, p := range c.Spec.CIDRs {
				prefixes = append(prefixes, netip.MustParsePrefix(p))
			}
		}

		ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "netfork-e2e-"},
		}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(func(ctx context.Context) {
			gomega.Expect(client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})).To(gomega.Succeed())
		})

		policy := corev1.IPFamilyPolicyPreferDualStack
		svc, err := client.CoreV1().Services(ns.Name).Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e"},
			Spec: corev1.ServiceSpec{
				IPFamilyPolicy: &policy,
				Ports:          []corev1.ServicePort{{Port: 80}},
			},
		}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(svc.Spec.ClusterIPs).NotTo(gomega.BeEmpty())

		for _, ip := range svc.Spec.ClusterIPs {
			addr := netip.MustParseAddr(ip)
			gomega.Expect(covered(prefixes, addr)).To(gomega.BeTrue(), "ClusterIP %s outside every ServiceCIDR %v", ip, prefixes)
			gomega.Eventually(ctx, func(ctx context.Context) (*networkingv1.ParentReference, error) {
				a, err := client.NetworkingV1().IPAddresses().Get(ctx, ip, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				return a.Spec.ParentRef, nil
			}).WithTimeout(30 * time.Second).Should(gomega.Equal(&networkingv1.ParentReference{
				Resource: "services", Namespace: ns.Name, Name: svc.Name,
			}))
		}
	})
})

func covered(prefixes []netip.Prefix, addr netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
