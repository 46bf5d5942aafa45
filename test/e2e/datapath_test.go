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
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var _ = ginkgo.Describe("Data path: the kubernetes Service [KEP-2438]", ginkgo.Label("datapath", "KEP-2438"), func() {
	ginkgo.It("is reached from a pod over TCP+TLS on each of its ClusterIPs", func(ctx context.Context) {
		nodes := dpSchedulableNodes(ctx)
		svc, err := client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(svc.Spec.ClusterIPs).NotTo(gomega.BeEmpty())
		if len(svc.Spec.ClusterIPs) == 1 {
			ginkgo.By(fmt.Sprintf("the kubernetes Service is single-stack (%s): one family to test", svc.Spec.ClusterIPs[0]))
		}
		ns := dpNamespace(ctx)
		for i, ip := range svc.Spec.ClusterIPs {
			ginkgo.By("GET https://kubernetes.default.svc/version through " + ip)
			code, log := dpRunPod(ctx, ns, dpPod(fmt.Sprintf("tls-%d", i), nodes[0].Name, dpCurlAPIServer(ip, 10), corev1.RestartPolicyNever))
			gomega.Expect(code).To(gomega.BeZero(), "curl through %s failed: %s", ip, log)
			gomega.Expect(log).To(gomega.Equal("200"), "through %s", ip)
		}
	})
})

var _ = ginkgo.Describe("Data path: Services on a new ServiceCIDR [KEP-1880]", ginkgo.Label("datapath", "KEP-1880"), func() {
	var (
		nodes   []corev1.Node
		ns      string
		svc     *corev1.Service
		backend *corev1.Pod
	)

	ginkgo.BeforeEach(func(ctx context.Context) {
		nodes = dpSchedulableNodes(ctx)
		ns = dpNamespace(ctx)
		cidr := dpNewServiceCIDR(ctx)
		ginkgo.By("a backend answering its name on port 8080")
		server := dpPod("backend", nodes[0].Name, dpHTTPServer, corev1.RestartPolicyAlways)
		server.Spec.Containers[0].ReadinessProbe = &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}},
			PeriodSeconds: 1,
		}
		backend = dpStartPod(ctx, ns, server)

		ip := dpAddrIn(cidr, 10)
		ginkgo.By(fmt.Sprintf("a NodePort Service with ClusterIP %s from ServiceCIDR %s", ip, cidr))
		var err error
		svc, err = client.CoreV1().Services(ns).Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "on-new-cidr"},
			Spec: corev1.ServiceSpec{
				Type:      corev1.ServiceTypeNodePort,
				ClusterIP: ip,
				Selector:  map[string]string{"netfork-dp": "backend"},
				Ports:     []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}},
			},
		}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
	})

	ginkgo.It("answers on its ClusterIP from a pod", func(ctx context.Context) {
		url := fmt.Sprintf("http://%s:80/", dpURLHost(svc.Spec.ClusterIP))
		dpEventuallyAnswers(ctx, ns, "client", nodes[len(nodes)-1].Name, url, backend.Name)
	})

	ginkgo.It("answers on its NodePort on a node that does not run its backend", func(ctx context.Context) {
		all, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		var other string
		ipv6 := strings.Contains(svc.Spec.ClusterIP, ":")
		for _, n := range all.Items {
			if n.Name != backend.Spec.NodeName && dpNodeReady(n) && dpInternalIP(n, ipv6) != "" {
				other = dpInternalIP(n, ipv6)
			}
		}
		if other == "" {
			ginkgo.Skip("the cluster has one node: the NodePort must be reached on a node other than the backend's")
		}
		url := fmt.Sprintf("http://%s:%d/", dpURLHost(other), svc.Spec.Ports[0].NodePort)
		dpEventuallyAnswers(ctx, ns, "nodeport-client", nodes[0].Name, url, backend.Name)
	})
})

var _ = ginkgo.Describe("Data path: containment [KEP-1880]", ginkgo.Label("datapath", "KEP-1880"), func() {
	ginkgo.It("refuses a pod's connection to an unallocated ClusterIP on port 80", func(ctx context.Context) {
		nodes := dpSchedulableNodes(ctx)
		cidr, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, "kubernetes", metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		prefix := netip.MustParsePrefix(cidr.Spec.CIDRs[0])
		ip := dpUnallocated(ctx, prefix)
		ginkgo.By("connecting to " + ip + ":80, which no Service holds")
		ns := dpNamespace(ctx)
		script := fmt.Sprintf("curl -sS -o /dev/null --connect-timeout 10 --max-time 15 http://%s:80/; echo \" exit=$?\"", dpURLHost(ip))
		_, log := dpRunPod(ctx, ns, dpPod("unallocated", nodes[0].Name, script, corev1.RestartPolicyNever))
		// curl exits 7 when the connection is refused; 28 would be a timeout (dropped: kube-proxy's
		// nftables mode drops such traffic, so the refusal is netfork's node rule, see
		// kind/lib/network.sh) and 0 an answer from something outside the cluster.
		gomega.Expect(log).To(gomega.HaveSuffix(" exit=7\n"), "connection to unallocated ClusterIP %s was not refused", ip)
	})
})

// dpServeScript writes /tmp/serve.sh, which answers one HTTP request with the pod's name. It
// reads the request up to its blank line before answering: closing a socket with unread data
// sends a reset, which the client would see instead of the answer.
const dpServeScript = `cat >/tmp/serve.sh <<'END'
while read -r line; do case "$line" in "$(printf '\r')"|"") break;; esac; done
printf 'HTTP/1.0 200 OK\r\n\r\n%s' "$HOSTNAME"
END
`

// dpHTTPServer answers every HTTP request on port 8080, IPv4, with the pod's name.
const dpHTTPServer = dpServeScript + `exec socat -T 5 TCP-LISTEN:8080,fork,reuseaddr EXEC:"sh /tmp/serve.sh"`

// dpNewServiceCIDR creates a ServiceCIDR of the cluster's primary family right after the
// default one (a /24 or a /120), inside netfork's test ranges, waits until it is Ready and
// deletes it after the spec.
func dpNewServiceCIDR(ctx context.Context) netip.Prefix {
	def, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, "kubernetes", metav1.GetOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	primary := netip.MustParsePrefix(def.Spec.CIDRs[0]).Masked()
	bits := 24
	if primary.Addr().Is6() {
		bits = 120
	}
	next := dpAfter(primary)
	cidr := netip.PrefixFrom(next, bits).Masked()
	if !dpContained(cidr) {
		ginkgo.Skip(fmt.Sprintf("the range after the default ServiceCIDR, %s, is outside 198.18.0.0/15 and fc00::/7; netfork's tests only use those", cidr))
	}
	createReadyServiceCIDR(ctx, "netfork-dp-", cidr)
	return cidr
}

// dpEventuallyAnswers runs client pods on node fetching url until one gets the backend's name.
// Each attempt is a finished pod: the Service's rules may need a moment to reach every node.
func dpEventuallyAnswers(ctx context.Context, ns, name, node, url, want string) {
	attempt := 0
	gomega.Eventually(ctx, func(ctx context.Context) string {
		attempt++
		_, log := dpRunPod(ctx, ns, dpPod(fmt.Sprintf("%s-%d", name, attempt), node,
			"curl -sS --max-time 5 "+url, corev1.RestartPolicyNever))
		return log
	}).WithTimeout(2*time.Minute).WithPolling(time.Second).Should(gomega.Equal(want), "GET %s from node %s", url, node)
}

// dpAfter returns the first address after a prefix.
func dpAfter(p netip.Prefix) netip.Addr {
	a := p.Masked().Addr()
	host := a.BitLen() - p.Bits()
	b := a.AsSlice()
	// add 2^host to the address, byte by byte from the right
	carry := 0
	for i := len(b) - 1; i >= 0; i-- {
		bit := (len(b) - 1 - i) * 8
		add := 0
		if host >= bit && host < bit+8 {
			add = 1 << (host - bit)
		}
		sum := int(b[i]) + add + carry
		b[i] = byte(sum)
		carry = sum >> 8
	}
	next, _ := netip.AddrFromSlice(b)
	return next
}

// dpAddrIn returns the n-th address of a prefix.
func dpAddrIn(p netip.Prefix, n int) string {
	a := p.Masked().Addr()
	for i := 0; i < n; i++ {
		a = a.Next()
	}
	return a.String()
}

// dpContained reports whether a prefix lies inside the ranges netfork's tests may use.
func dpContained(p netip.Prefix) bool {
	for _, r := range []string{"198.18.0.0/15", "fc00::/7"} {
		outer := netip.MustParsePrefix(r)
		if outer.Contains(p.Addr()) && p.Bits() >= outer.Bits() {
			return true
		}
	}
	return false
}

// dpUnallocated returns an address near the end of prefix that no IPAddress object holds.
func dpUnallocated(ctx context.Context, prefix netip.Prefix) string {
	if !dpContained(prefix) {
		ginkgo.Skip(fmt.Sprintf("the default ServiceCIDR %s is outside 198.18.0.0/15 and fc00::/7: connecting to it could leave the host", prefix))
	}
	last := dpAfter(prefix).Prev()
	for a, i := last.Prev(), 0; i < 64; a, i = a.Prev(), i+1 {
		_, err := client.NetworkingV1().IPAddresses().Get(ctx, a.String(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return a.String()
		}
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
	}
	ginkgo.Fail(fmt.Sprintf("the last 64 addresses of %s are all allocated", prefix))
	return ""
}
