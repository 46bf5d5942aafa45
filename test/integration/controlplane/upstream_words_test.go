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
	"bytes"
	"context"
	"os/exec"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/netfork/netfork/test/integration/framework"
)

// TestAllocationErrorsAreUpstreamsWords sends the same bad Services to
// upstream's apiserver at the pinned release and to netfork's, each on a cluster of its own
// with the same flags, and compares the errors byte for byte: tools read the
// Service CIDR out of them (upstream #141152).
func TestAllocationErrorsAreUpstreamsWords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	servers := map[string]*framework.APIServer{
		"upstream": framework.StartUpstreamAPIServer(t),
		"netfork":  framework.StartAPIServer(t),
	}
	withIP := func(name string, ips ...string) *corev1.Service {
		svc := clusterIPService(name)
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = ips[0], ips
		if len(ips) > 1 {
			policy := corev1.IPFamilyPolicyRequireDualStack
			svc.Spec.IPFamilyPolicy = &policy
		}
		return svc
	}
	withNodePort := func(name string, port int32) *corev1.Service {
		svc := clusterIPService(name)
		svc.Spec.Type = corev1.ServiceTypeNodePort
		svc.Spec.Ports[0].NodePort = port
		return svc
	}
	taken := withNodePort("taken", 30050)
	taken.Spec.ClusterIP, taken.Spec.ClusterIPs = "10.96.0.50", []string{"10.96.0.50"}
	cases := []*corev1.Service{
		withIP("network", "10.96.0.0"),
		withIP("broadcast", "10.96.255.255"),
		withIP("outside", "10.200.0.1"),
		withIP("ipv6-network", "10.96.0.51", "fd00:10:96::"),
		withIP("ipv6-outside", "10.96.0.52", "fd00:99::1"),
		withIP("ip-taken", "10.96.0.50"),
		withNodePort("port-outside", 29999),
		withNodePort("port-taken", 30050),
	}
	got := map[string][]string{}
	for name, s := range servers {
		createService(ctx, t, s.Client, taken)
		for _, svc := range cases {
			_, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, svc, metav1.CreateOptions{})
			if err == nil {
				t.Fatalf("%s accepted Service %s", name, svc.Name)
			}
			got[name] = append(got[name], err.Error())
		}
	}
	for i, svc := range cases {
		if up, nf := got["upstream"][i], got["netfork"][i]; up != nf {
			t.Errorf("Service %s:\nupstream: %s\nnetfork:  %s", svc.Name, up, nf)
		}
	}
}

// TestFlagErrorsAreUpstreamsWords runs both binaries with flags upstream
// refuses and compares what they print, byte for byte, and their exit codes.
func TestFlagErrorsAreUpstreamsWords(t *testing.T) {
	t.Parallel()
	binaries := map[string]string{
		"upstream": framework.UpstreamAPIServerBinary(t),
		"netfork":  framework.NetforkAPIServerBinary(t),
	}
	for _, args := range [][]string{
		// a pair with DualStackAPIServer off is upstream's parse error
		{"--bind-address=1.2.3.4,::1"},
		{"--advertise-address=192.0.2.1,2001:db8::1", "--bind-address=127.0.0.1"},
		{"--bind-address=localhost"},
		{"--secure-port=abc"},
		{"unexpected-argument"},
	} {
		outputs := map[string]string{}
		codes := map[string]int{}
		for name, binary := range binaries {
			var stderr bytes.Buffer
			cmd := exec.Command(binary, args...)
			cmd.Stderr = &stderr
			err := cmd.Run()
			exitErr, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("%s %v: %v, want a non-zero exit", name, args, err)
			}
			outputs[name], codes[name] = stderr.String(), exitErr.ExitCode()
		}
		if outputs["upstream"] != outputs["netfork"] || codes["upstream"] != codes["netfork"] {
			t.Errorf("%v:\nupstream (exit %d): %q\nnetfork  (exit %d): %q", args,
				codes["upstream"], outputs["upstream"], codes["netfork"], outputs["netfork"])
		}
	}
}
