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
	"encoding/json"
	"os/exec"
	"regexp"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// refusedIPAddressFacts is the message of the test's policy that refuses the
// IPAddresses of Services named refused-*: what admission saw of the request.
const refusedIPAddressFacts = "'refused: groups=' + request.userInfo.groups.join(',') + " +
	"' options=' + request.options.apiVersion + '/' + request.options.kind + ' dryRun=' + string(request.dryRun)"

// TestIPAddressRefusalIsUpstreams has a ValidatingAdmissionPolicy refuse the
// IPAddress creates of some Services, on upstream's apiserver at the pinned
// release and on netfork's, and compares the Services' errors: status code,
// reason, field and words, with the policy's message naming what admission
// saw of the IPAddress request (user groups in order, options, dry-run).
// Addresses the apiserver chose are masked, and so are both of a dual-stack
// Service's, since either family may be the one refused first (upstream
// allocates the families in map order). A second policy lets an IPAddress
// delete through only when it looks like upstream's loopback DELETE; every
// IPAddress of a deleted Service must be gone when its delete returns.
func TestIPAddressRefusalIsUpstreams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	flags := framework.WithFlags("--service-cluster-ip-range=" + dualStackRanges)
	servers := map[string]*framework.APIServer{
		"upstream": framework.StartUpstreamAPIServer(t, flags),
		"netfork":  framework.StartAPIServer(t, flags),
	}
	dual := func(svc *corev1.Service) *corev1.Service {
		return withFamilies(svc, corev1.IPFamilyPolicyRequireDualStack)
	}
	cases := []struct {
		svc  *corev1.Service
		mask bool
	}{
		{clusterIPService("refused-dynamic"), true},
		{withClusterIPs(clusterIPService("refused-static"), "10.100.0.77"), false},
		{dual(clusterIPService("refused-dual")), true},
		{dual(withClusterIPs(clusterIPService("refused-dual-static"), "10.100.0.78", "fd00:10:100::78")), true},
	}
	got := map[string][]string{}
	for name, s := range servers {
		waitKubernetesService(ctx, t, s.Client)
		// The delete policy is created first, so the plugin's informers hold
		// it by the time the create policy, created after it, bites.
		denyIPAddresses(ctx, t, s.Client, "loopback-deletes", admissionregistrationv1.Delete, admissionregistrationv1.Validation{
			Expression: "request.userInfo.groups == ['system:authenticated', 'system:masters'] && " +
				"request.options.apiVersion == 'meta.k8s.io/v1' && request.options.kind == 'DeleteOptions' && !request.dryRun",
			Message: "not upstream's loopback DELETE",
		})
		denyIPAddresses(ctx, t, s.Client, "refuse-ipaddresses", admissionregistrationv1.Create, admissionregistrationv1.Validation{
			Expression:        "!object.spec.parentRef.name.startsWith('refused')",
			MessageExpression: refusedIPAddressFacts,
		})
		waitRefused(ctx, t, s.Client, metav1.NamespaceDefault, clusterIPService("refused-probe"), "refused: groups=")
		for _, c := range cases {
			_, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, c.svc.DeepCopy(), metav1.CreateOptions{})
			if err == nil {
				t.Fatalf("%s created Service %s; want its IPAddress refused", name, c.svc.Name)
			}
			got[name] = append(got[name], statusOf(t, err, c.mask))
		}

		// A dry run allocates nothing and sends no IPAddress to admission.
		dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
		if _, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, dual(clusterIPService("refused-dry-run")), dryRun); err != nil {
			t.Errorf("%s: dry run of Service refused-dry-run: %v, want it accepted with no IPAddress admitted", name, err)
		}

		allowed := createService(ctx, t, s.Client, dual(clusterIPService("allowed")))
		if err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, allowed.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("%s: deleting Service allowed: %v", name, err)
		}
		for _, ip := range allowed.Spec.ClusterIPs {
			if _, err := s.Client.NetworkingV1().IPAddresses().Get(ctx, ip, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("%s: IPAddress %s of deleted Service allowed: %v, want NotFound (the delete policy let upstream's loopback DELETE through)", name, ip, err)
			}
		}
	}
	for i, c := range cases {
		if up, nf := got["upstream"][i], got["netfork"][i]; up != nf {
			t.Errorf("Service %s:\nupstream: %s\nnetfork:  %s", c.svc.Name, up, nf)
		}
	}
}

// testRangeAddress matches the addresses of dualStackRanges.
var testRangeAddress = regexp.MustCompile(`10\.100\.0\.[0-9]+|fd00:10:100::[0-9a-f]+`)

// statusOf is err's API status as JSON, the test ranges' addresses masked if mask.
func statusOf(t *testing.T, err error, mask bool) string {
	t.Helper()
	status, ok := err.(apierrors.APIStatus)
	if !ok {
		t.Fatalf("error %v is no API status", err)
	}
	out, jerr := json.Marshal(status.Status())
	if jerr != nil {
		t.Fatal(jerr)
	}
	if mask {
		return testRangeAddress.ReplaceAllString(string(out), "<ip>")
	}
	return string(out)
}
