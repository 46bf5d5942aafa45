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

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/vishvananda/netlink"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// cniConfigPath is where kind's kindnetd writes its configuration and containerd looks for one.
const cniConfigPath = "/etc/cni/net.d/10-kindnet.conflist"

// writeCNIConfig writes the ptp/host-local/portmap chain for the node's PodCIDRs, with the MTU
// of the interface that holds the node's address, atomically and only when it changed.
func (r *reconciler) writeCNIConfig(node *corev1.Node) error {
	if len(node.Spec.PodCIDRs) == 0 {
		klog.Infof("node %s has no PodCIDRs yet", node.Name)
		return nil
	}
	mtu, err := mtuOf(r.hostIP)
	if err != nil {
		return err
	}
	ranges := make([][]map[string]string, 0, len(node.Spec.PodCIDRs))
	for _, cidr := range node.Spec.PodCIDRs {
		ranges = append(ranges, []map[string]string{{"subnet": cidr}})
	}
	conf := map[string]any{
		"cniVersion": "0.4.0",
		"name":       "kindnet",
		"plugins": []any{
			map[string]any{
				"type":   "ptp",
				"ipMasq": false,
				"mtu":    mtu,
				"ipam": map[string]any{
					"type":    "host-local",
					"dataDir": "/run/cni-ipam-state",
					"routes":  defaultRoutes(node.Spec.PodCIDRs),
					"ranges":  ranges,
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}
	data, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		return err
	}
	if string(data) == r.written {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(r.cniPath), 0o755); err != nil {
		return err
	}
	tmp := r.cniPath + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, r.cniPath); err != nil {
		return err
	}
	r.written = string(data)
	klog.Infof("wrote %s for PodCIDRs %v (mtu %d)", r.cniPath, node.Spec.PodCIDRs, mtu)
	return nil
}

// defaultRoutes gives pods a default route for each family they have an address of.
func defaultRoutes(cidrs []string) []map[string]string {
	var routes []map[string]string
	for _, cidr := range cidrs {
		ip, _, err := net.ParseCIDR(cidr)
		if err != nil {
			continue
		}
		dst := "0.0.0.0/0"
		if ip.To4() == nil {
			dst = "::/0"
		}
		routes = append(routes, map[string]string{"dst": dst})
	}
	return routes
}

// mtuOf returns the MTU of the link that holds addr, so pod veths never exceed the node's.
func mtuOf(addr string) (int, error) {
	links, err := netlink.LinkList()
	if err != nil {
		return 0, err
	}
	want := net.ParseIP(addr)
	for _, link := range links {
		addrs, err := netlink.AddrList(link, netlink.FAMILY_ALL)
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if a.IP.Equal(want) {
				return link.Attrs().MTU, nil
			}
		}
	}
	return 0, fmt.Errorf("no interface holds HOST_IP %s", addr)
}
