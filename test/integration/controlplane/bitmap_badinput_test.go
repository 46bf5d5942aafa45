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
	"net/http"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/netfork/netfork/test/integration/framework"
)

// TestBitmapBadRequests checks bad ClusterIP and NodePort requests get upstream's
// 422 with the field path and upstream's exact text (recorded from upstream's
// bitmap allocators), and leave nothing allocated: the values they named, and
// any value allocated for the Service's other fields, are free afterwards.
func TestBitmapBadRequests(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, bitmapMode(), bitmapFlags())
	waitKubernetesService(ctx, t, s.Client)
	taken := nodePortService("taken")
	taken.Spec.ClusterIP = "10.96.0.50"
	taken.Spec.Ports[0].NodePort = 30050
	createService(ctx, t, s.Client, taken)

	tests := []struct {
		name      string
		clusterIP string
		family    corev1.IPFamily
		nodePort  int32
		wantField string
		wantText  string
	}{
		{name: "ClusterIP out of range", clusterIP: "10.97.0.5", wantField: "spec.clusterIPs", wantText: "failed to allocate IP 10.97.0.5: the provided IP (10.97.0.5) is not in the valid range. The range of valid IPs is 10.96.0.0/24"},
		{name: "ClusterIP taken", clusterIP: "10.96.0.50", wantField: "spec.clusterIPs", wantText: "failed to allocate IP 10.96.0.50: provided IP is already allocated"},
		{name: "network address", clusterIP: "10.96.0.0", wantField: "spec.clusterIPs", wantText: "failed to allocate IP 10.96.0.0: the provided IP (10.96.0.0) is not in the valid range. The range of valid IPs is 10.96.0.0/24"},
		{name: "broadcast address", clusterIP: "10.96.0.255", wantField: "spec.clusterIPs", wantText: "failed to allocate IP 10.96.0.255: the provided IP (10.96.0.255) is not in the valid range. The range of valid IPs is 10.96.0.0/24"},
		{name: "wrong family", clusterIP: "fd00::5", family: corev1.IPv6Protocol, wantField: "spec.ipFamilies[0]", wantText: `Invalid value: "IPv6": not configured on this cluster`},
		{name: "NodePort out of range", nodePort: 31000, wantField: "spec.ports[0].nodePort", wantText: "Invalid value: 31000: provided port is not in the valid range. The range of valid ports is 30000-30099"},
		{name: "NodePort taken", nodePort: 30050, wantField: "spec.ports[0].nodePort", wantText: "Invalid value: 30050: provided port is already allocated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := nodePortService("bad")
			svc.Spec.ClusterIP = tc.clusterIP
			if tc.family != "" {
				svc.Spec.IPFamilies = []corev1.IPFamily{tc.family}
			}
			svc.Spec.Ports[0].NodePort = tc.nodePort
			_, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, svc, metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) {
				t.Fatalf("create: got %v, want 422 Invalid", err)
			}
			status := err.(apierrors.APIStatus).Status()
			if status.Code != http.StatusUnprocessableEntity {
				t.Errorf("code %d, want %d", status.Code, http.StatusUnprocessableEntity)
			}
			if !hasCause(status, tc.wantField, tc.wantText) {
				t.Errorf("error %q has no cause on %s containing %q; causes: %+v", err, tc.wantField, tc.wantText, status.Details)
			}
		})
	}

	// nothing the failed creates allocated is held
	assertFreeSpace(ctx, t, s, 254, 100)
}

// assertFreeSpace fills both ranges with dynamic Services and checks exactly the
// values no Service holds were free, so no failed request left one allocated.
func assertFreeSpace(ctx context.Context, t *testing.T, s *framework.APIServer, ipRangeSize, portRangeSize int) {
	t.Helper()
	list, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing Services: %v", err)
	}
	ipsHeld, portsHeld := 0, 0
	for _, svc := range list.Items {
		ipsHeld += len(svc.Spec.ClusterIPs)
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				portsHeld++
			}
		}
	}
	fill := func(prefix string, mk func(string) *corev1.Service) int {
		for n := 0; ; n++ {
			if _, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, mk(prefix+strconv.Itoa(n)), metav1.CreateOptions{}); err != nil {
				return n
			}
		}
	}
	ports := fill("fill-port-", nodePortService)
	ips := ports + fill("fill-ip-", clusterIPService)
	if want := portRangeSize - portsHeld; ports != want {
		t.Errorf("%d NodePorts were free, want %d (range %d, held by Services %d)", ports, want, portRangeSize, portsHeld)
	}
	if want := ipRangeSize - ipsHeld; ips != want {
		t.Errorf("%d ClusterIPs were free, want %d (range %d, held by Services %d)", ips, want, ipRangeSize, ipsHeld)
	}
}

func hasCause(status metav1.Status, field, text string) bool {
	if status.Details == nil {
		return false
	}
	for _, c := range status.Details.Causes {
		if c.Field == field && strings.Contains(c.Message, text) {
			return true
		}
	}
	return false
}
