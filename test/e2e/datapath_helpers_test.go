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
	"os"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// dpClientImage is the image the data-path specs run their client and server pods from: it
// needs sh, curl and socat. netfork's kind node image pre-loads it (kind); elsewhere set
// NETFORK_E2E_CLIENT_IMAGE to an image the cluster's nodes already hold.
var dpClientImage = func() string {
	if v := os.Getenv("NETFORK_E2E_CLIENT_IMAGE"); v != "" {
		return v
	}
	return "docker.io/netfork/kind-e2e-client:1"
}()

// dpPodTimeout bounds how long a data-path pod may take to be scheduled and run.
const dpPodTimeout = 2 * time.Minute

// dpSchedulableNodes returns the Ready nodes a plain pod can land on, and skips the spec when
// there is none (a control plane without nodes, such as local-up).
func dpSchedulableNodes(ctx context.Context) []corev1.Node {
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	var out []corev1.Node
	for _, n := range nodes.Items {
		if n.Spec.Unschedulable || !dpNodeReady(n) {
			continue
		}
		tainted := false
		for _, t := range n.Spec.Taints {
			if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
				tainted = true
			}
		}
		if !tainted {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		ginkgo.Skip("the cluster has no schedulable Ready node: data-path specs need nodes running pods (a kind cluster), not a bare control plane")
	}
	return out
}

// dpNodeReady reports a node's Ready condition.
func dpNodeReady(n corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// dpInternalIP returns a node's first InternalIP of the wanted family ("" if none).
func dpInternalIP(n corev1.Node, ipv6 bool) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP && strings.Contains(a.Address, ":") == ipv6 {
			return a.Address
		}
	}
	return ""
}

// dpNamespace creates a namespace for one spec and deletes it afterwards.
func dpNamespace(ctx context.Context) string {
	ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "netfork-dp-"},
	}, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func(ctx context.Context) {
		err := client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}
		// Wait, so that the next spec finds the addresses this one's Services held free again.
		gomega.Eventually(ctx, func(ctx context.Context) bool {
			_, err := client.CoreV1().Namespaces().Get(ctx, ns.Name, metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		}).WithTimeout(3*time.Minute).WithPolling(time.Second).Should(gomega.BeTrue(), "namespace %s not deleted", ns.Name)
	})
	return ns.Name
}

// dpPod returns a pod running script with sh on node (any node when ""), from dpClientImage.
func dpPod(name, node, script string, restart corev1.RestartPolicy) *corev1.Pod {
	zero := int64(0)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"netfork-dp": name}},
		Spec: corev1.PodSpec{
			NodeName:                      node,
			RestartPolicy:                 restart,
			TerminationGracePeriodSeconds: &zero,
			Containers: []corev1.Container{{
				Name:            "main",
				Image:           dpClientImage,
				ImagePullPolicy: corev1.PullNever,
				Command:         []string{"sh", "-c", script},
			}},
		},
	}
}

// dpRunPod runs a pod to completion and returns its exit code and log; it skips the spec when
// the node does not hold dpClientImage.
func dpRunPod(ctx context.Context, ns string, pod *corev1.Pod) (int32, string) {
	created, err := client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	var code int32
	gomega.Eventually(ctx, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		dpSkipWithoutImage(p)
		for _, s := range p.Status.ContainerStatuses {
			if t := s.State.Terminated; t != nil {
				code = t.ExitCode
				return true, nil
			}
		}
		return false, nil
	}).WithTimeout(dpPodTimeout).WithPolling(time.Second).Should(gomega.BeTrue(), "pod %s/%s did not finish", ns, created.Name)
	return code, dpLogs(ctx, ns, created.Name)
}

// dpStartPod creates a long-running pod and waits until it is Running (and Ready, if it has a
// readiness probe); it skips the spec when the node does not hold dpClientImage.
func dpStartPod(ctx context.Context, ns string, pod *corev1.Pod) *corev1.Pod {
	created, err := client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	var running *corev1.Pod
	gomega.Eventually(ctx, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		dpSkipWithoutImage(p)
		if p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded {
			return false, gomega.StopTrying(fmt.Sprintf("pod %s ended (%s): %s", p.Name, p.Status.Phase, dpLogs(ctx, ns, p.Name)))
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				running = p
				return true, nil
			}
		}
		return false, nil
	}).WithTimeout(dpPodTimeout).WithPolling(time.Second).Should(gomega.BeTrue(), "pod %s/%s not ready", ns, created.Name)
	return running
}

// dpSkipWithoutImage skips the spec when kubelet reports that dpClientImage is not on the node.
func dpSkipWithoutImage(p *corev1.Pod) {
	for _, s := range p.Status.ContainerStatuses {
		if w := s.State.Waiting; w != nil && (w.Reason == "ErrImageNeverPull" || w.Reason == "ErrImagePull" || w.Reason == "ImagePullBackOff") {
			ginkgo.Skip(fmt.Sprintf("node %s does not hold %s (%s); netfork's kind node image pre-loads it, elsewhere set NETFORK_E2E_CLIENT_IMAGE", p.Spec.NodeName, dpClientImage, w.Reason))
		}
	}
}

// dpLogs returns a pod's log.
func dpLogs(ctx context.Context, ns, name string) string {
	raw, err := client.CoreV1().Pods(ns).GetLogs(name, &corev1.PodLogOptions{}).DoRaw(ctx)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	return string(raw)
}

// dpURLHost formats an address for a URL or curl's --resolve (IPv6 in brackets).
func dpURLHost(ip string) string {
	if strings.Contains(ip, ":") {
		return "[" + ip + "]"
	}
	return ip
}

// dpCurlAPIServer is a shell command that fetches /version from the kubernetes Service at ip
// over TLS, verifying the serving certificate against kubernetes.default.svc with the pod's
// service-account CA, and prints curl's HTTP code.
func dpCurlAPIServer(ip string, maxTime int) string {
	return fmt.Sprintf("curl -sS -o /dev/null -w '%%{http_code}' --max-time %d "+
		"--cacert /var/run/secrets/kubernetes.io/serviceaccount/ca.crt "+
		"--resolve kubernetes.default.svc:443:%s https://kubernetes.default.svc:443/version", maxTime, dpURLHost(ip))
}
