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

package renumber

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestParseRanges(t *testing.T) {
	for in, want := range map[string]string{
		"10.200.0.0/16":                   "10.200.0.0/16",
		" 10.200.0.0/16 , fd00::/108 ":    "10.200.0.0/16,fd00::/108",
		"fd00::/108,10.200.0.0/16":        "fd00::/108,10.200.0.0/16",
		"":                                "no CIDR given",
		"10.200.0.1/16":                   "host bits set (the network is 10.200.0.0/16)",
		"10.0.0.0/8,10.1.0.0/16":          "at most one CIDR per IP family",
		"10.0.0.0/8,fd00::/108,fd01::/64": "at most one CIDR per IP family",
		"bogus":                           `"bogus" is not a CIDR`,
	} {
		r, err := ParseRanges(in)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = r.String()
		}
		if !strings.Contains(got, want) {
			t.Errorf("ParseRanges(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUsable(t *testing.T) {
	for in, want := range map[string]string{
		"10.0.0.0/30": "2", "10.0.0.0/31": "0", "10.0.0.0/32": "0", "10.0.0.0/24": "254",
		"fd00::/126": "3", "fd00::/64": "18446744073709551615",
	} {
		if got := usable(netip.MustParsePrefix(in)).String(); got != want {
			t.Errorf("usable(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestPicker(t *testing.T) {
	from, _ := ParseRanges("10.96.0.0/16,fd00:10:96::/108")
	to, _ := ParseRanges("10.200.0.0/24,fd00:10:200::/108")
	p := &picker{from: from, to: to, taken: map[netip.Addr]bool{netip.MustParseAddr("10.200.0.9"): true}}
	for _, tc := range []struct{ old, want string }{
		{"10.96.0.77", "10.200.0.77"},           // the host offset kept
		{"fd00:10:96::1:5", "fd00:10:200::1:5"}, // in IPv6 too
		{"10.96.0.9", "10.200.0.2"},             // taken: the lowest free, never the first address
		{"10.96.3.4", "10.200.0.3"},             // beyond the smaller target: the lowest free
		{"10.96.0.1", "10.200.0.4"},             // offset 1 is the kubernetes Service's
		{"192.168.0.1", "192.168.0.1"},          // outside the source range: kept
	} {
		got, err := p.pick(tc.old)
		if err != nil || got != tc.want {
			t.Errorf("pick(%s) = %s, %v; want %s", tc.old, got, err, tc.want)
		}
	}
	full := &picker{from: from, to: Ranges{netip.MustParsePrefix("10.200.0.0/30"), to[1]}, taken: map[netip.Addr]bool{}}
	if _, err := full.pick("10.96.0.5"); err != nil {
		t.Fatal(err)
	}
	if got, err := full.pick("10.96.0.6"); err == nil || !strings.Contains(err.Error(), "no free address left in 10.200.0.0/30") {
		t.Errorf("pick in a full target = %s, %v; want no free address", got, err)
	}
}

func TestBridgeName(t *testing.T) {
	if got := bridgeName("web"); got != "web-renumber-bridge" {
		t.Errorf("bridgeName(web) = %s", got)
	}
	long, other := strings.Repeat("a", 63), strings.Repeat("a", 62)+"b"
	a, b := bridgeName(long), bridgeName(other)
	if len(a) > 63 || !strings.HasSuffix(a, "-renumber-bridge") || a == b {
		t.Errorf("bridgeName of two 63-character names: %q, %q; want distinct DNS labels", a, b)
	}
}

func TestClassify(t *testing.T) {
	from, _ := ParseRanges("10.96.0.0/16")
	now := metav1.Now()
	for _, tc := range []struct {
		svc       corev1.Service
		includeLB bool
		want      Disposition
	}{
		{corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIPs: []string{"10.96.0.5"}}}, false, Move},
		{corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIPs: []string{"10.97.0.5"}}}, false, OtherRange},
		{corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "None", ClusterIPs: []string{"None"}}}, false, Headless},
		{corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName}}, false, ExternalName},
		{corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIPs: []string{"10.96.0.5"}}}, false, LoadBalancer},
		{corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIPs: []string{"10.96.0.5"}}}, true, Move},
		{corev1.Service{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &now}, Spec: corev1.ServiceSpec{ClusterIPs: []string{"10.96.0.5"}}}, false, Deleting},
		{corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kubernetes"}, Spec: corev1.ServiceSpec{ClusterIPs: []string{"10.96.0.1"}}}, false, KubernetesService},
		{corev1.Service{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{BridgeLabel: "web"}}, Spec: corev1.ServiceSpec{ClusterIPs: []string{"10.96.0.5"}}}, false, Bridge},
	} {
		if got := classify(&tc.svc, from, tc.includeLB); got != tc.want {
			t.Errorf("classify(%+v, includeLB=%t) = %s, want %s", tc.svc, tc.includeLB, got, tc.want)
		}
	}
}

// TestConfigUpdates checks kubeadm's ConfigMaps change in their one value, byte for byte elsewhere.
func TestConfigUpdates(t *testing.T) {
	kubeadm := "apiServer:\n  certSANs: [10.96.0.1]\nnetworking:\n  dnsDomain: cluster.local\n  podSubnet: 10.244.0.0/16\n  serviceSubnet: \"10.96.0.0/16\" # kept\n"
	kubelet := "clusterDNS:\n- 10.96.0.10\n-   \"10.96.0.11\"\nclusterDomain: cluster.local\nhealthzBindAddress: 10.96.0.10\n"
	c := &cluster{
		kubeadm:    &corev1.ConfigMap{Data: map[string]string{kubeadmConfigKey: kubeadm}},
		kubelet:    &corev1.ConfigMap{Data: map[string]string{kubeletConfigKey: kubelet}},
		dnsService: "kube-system/kube-dns",
	}
	st := &State{From: []string{"10.96.0.0/16"}, To: []string{"10.200.0.0/16"}}
	pl := &Plan{Services: []PlannedService{{Namespace: "kube-system", Name: "kube-dns", Disposition: Moved, OldClusterIPs: []string{"10.96.0.10"}, NewClusterIPs: []string{"10.200.0.10"}}}}
	ups := configUpdates(c, st, pl)
	if len(ups) != 2 {
		t.Fatalf("configUpdates = %+v, want 2", ups)
	}
	if want := strings.Replace(kubeadm, `"10.96.0.0/16"`, `"10.200.0.0/16"`, 1); ups[0].New != want || ups[0].Old != kubeadm {
		t.Errorf("kubeadm-config:\n%s\nwant\n%s", ups[0].New, want)
	}
	if want := strings.Replace(kubelet, "- 10.96.0.10", "- 10.200.0.10", 1); ups[1].New != want {
		t.Errorf("kubelet-config:\n%s\nwant\n%s", ups[1].New, want)
	}
	c.kubeadm.Data[kubeadmConfigKey], c.kubelet.Data[kubeletConfigKey] = ups[0].New, ups[1].New
	if again := configUpdates(c, st, pl); len(again) != 0 {
		t.Errorf("configUpdates after the edits = %+v, want none", again)
	}
	if got := c.podSubnets(); len(got) != 1 || got[0].String() != "10.244.0.0/16" {
		t.Errorf("podSubnets = %v", got)
	}
}

func TestRefuseRecordSize(t *testing.T) {
	c := &cluster{taken: map[netip.Addr]bool{}}
	for i := range 5000 {
		c.services = append(c.services, corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("s%04d", i)},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIPs: []string{fmt.Sprintf("10.96.%d.%d", i/250, i%250+1)},
				Selector: map[string]string{"note": strings.Repeat("x", 800)}},
		})
	}
	st := &State{From: []string{"10.96.0.0/16"}, To: []string{"10.200.0.0/16"}}
	// 5000 entries of about 1 KB: five times what one ConfigMap holds, and every chunk fits.
	if err := refuseRecordSize(c, st, false); err != nil {
		t.Fatalf("5000 Services whose specs are small: %v", err)
	}
	for i := 64; i < 96; i++ {
		c.services[i].Spec.Selector = map[string]string{"note": strings.Repeat("x", 40_000)}
	}
	err := refuseRecordSize(c, st, false)
	if err == nil || !strings.Contains(err.Error(), "the record of 32 Services from default/") || !strings.Contains(err.Error(), "more than a ConfigMap can hold") {
		t.Errorf("32 Services with 40 kB selectors in one chunk: %v; want refused", err)
	}
}
