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
	"context"
	"fmt"
	"net/netip"
	"sort"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/netfork/netfork/pkg/controlplane/apiserverranges"
)

const (
	kubeadmConfigName  = "kubeadm-config"
	kubeadmConfigKey   = "ClusterConfiguration"
	kubeletConfigName  = "kubelet-config"
	kubeletConfigKey   = "kubelet"
	defaultDomain      = "cluster.local"
	dnsServiceSelector = dnsLabel + "=" + dnsLabelValue
	// dnsLabel and dnsLabelValue mark the cluster DNS Service (kubeadm's kube-dns).
	dnsLabel, dnsLabelValue = "k8s-app", "kube-dns"
)

// cluster is what a run reads before it decides anything.
type cluster struct {
	services    []corev1.Service
	defaultCIDR *networkingv1.ServiceCIDR
	target      *networkingv1.ServiceCIDR
	taken       map[netip.Addr]bool
	leases      []coordinationv1.Lease
	nodes       []corev1.Node
	kubeadm     *corev1.ConfigMap
	kubelet     *corev1.ConfigMap
	dnsService  string // namespace/name of the cluster DNS Service, "" if none
}

func readCluster(ctx context.Context, client kubernetes.Interface) (*cluster, error) {
	c := &cluster{taken: map[netip.Addr]bool{}}
	svcs, err := client.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing Services: %w", err)
	}
	c.services = svcs.Items
	sort.Slice(c.services, func(i, j int) bool {
		a, b := c.services[i], c.services[j]
		return a.Namespace < b.Namespace || (a.Namespace == b.Namespace && a.Name < b.Name)
	})
	cidrs := client.NetworkingV1().ServiceCIDRs()
	if c.defaultCIDR, err = cidrs.Get(ctx, DefaultServiceCIDRName, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		c.defaultCIDR = nil
	} else if err != nil {
		return nil, fmt.Errorf("reading ServiceCIDR %s: %w", DefaultServiceCIDRName, err)
	}
	if c.target, err = cidrs.Get(ctx, TargetServiceCIDRName, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		c.target = nil
	} else if err != nil {
		return nil, fmt.Errorf("reading ServiceCIDR %s: %w", TargetServiceCIDRName, err)
	}
	if err := c.readTaken(ctx, client); err != nil {
		return nil, err
	}
	leases, err := client.CoordinationV1().Leases(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{LabelSelector: apiserverranges.IdentitySelector})
	if err != nil {
		return nil, fmt.Errorf("listing the apiservers' identity Leases: %w", err)
	}
	c.leases = leases.Items
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing Nodes: %w", err)
	}
	c.nodes = nodes.Items
	if c.kubeadm, err = optionalConfigMap(ctx, client, kubeadmConfigName); err != nil {
		return nil, err
	}
	if c.kubelet, err = optionalConfigMap(ctx, client, kubeletConfigName); err != nil {
		return nil, err
	}
	dns, err := client.CoreV1().Services(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{LabelSelector: dnsServiceSelector})
	if err != nil {
		return nil, fmt.Errorf("listing the DNS Service: %w", err)
	}
	if len(dns.Items) > 0 {
		c.dnsService = metav1.NamespaceSystem + "/" + dns.Items[0].Name
	}
	return c, nil
}

// readTaken lists the addresses IPAddress objects hold.
func (c *cluster) readTaken(ctx context.Context, client kubernetes.Interface) error {
	ips, err := client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing IPAddresses: %w", err)
	}
	c.taken = map[netip.Addr]bool{}
	for _, ip := range ips.Items {
		if a, err := netip.ParseAddr(ip.Name); err == nil {
			c.taken[a] = true
		}
	}
	return nil
}

func optionalConfigMap(ctx context.Context, client kubernetes.Interface, name string) (*corev1.ConfigMap, error) {
	cm, err := client.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", metav1.NamespaceSystem, name, err)
	}
	return cm, nil
}

// kubeadmNetworking is the part of kubeadm's ClusterConfiguration the renumber reads.
type kubeadmNetworking struct {
	Networking struct {
		ServiceSubnet string `json:"serviceSubnet"`
		PodSubnet     string `json:"podSubnet"`
	} `json:"networking"`
}

// podSubnets is kubeadm's networking.podSubnet (kube-controller-manager's --cluster-cidr), if readable.
func (c *cluster) podSubnets() []netip.Prefix {
	if c.kubeadm == nil {
		return nil
	}
	var cfg kubeadmNetworking
	if err := yaml.Unmarshal([]byte(c.kubeadm.Data[kubeadmConfigKey]), &cfg); err != nil {
		return nil
	}
	var out []netip.Prefix
	for _, s := range strings.Split(cfg.Networking.PodSubnet, ",") {
		if p, err := netip.ParsePrefix(strings.TrimSpace(s)); err == nil {
			out = append(out, p.Masked())
		}
	}
	return out
}

// clusterDomain is kubelet's clusterDomain from kubeadm's kubelet-config, else cluster.local.
func (c *cluster) clusterDomain() string {
	if c.kubelet != nil {
		var cfg struct {
			ClusterDomain string `json:"clusterDomain"`
		}
		if yaml.Unmarshal([]byte(c.kubelet.Data[kubeletConfigKey]), &cfg) == nil && cfg.ClusterDomain != "" {
			return cfg.ClusterDomain
		}
	}
	return defaultDomain
}

func (c *cluster) service(namespace, name string) *corev1.Service {
	for i := range c.services {
		if c.services[i].Namespace == namespace && c.services[i].Name == name {
			return &c.services[i]
		}
	}
	return nil
}
