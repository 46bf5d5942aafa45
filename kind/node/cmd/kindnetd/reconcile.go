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
	"fmt"
	"net"

	"github.com/vishvananda/netlink"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	netutils "k8s.io/utils/net"
)

// reconciler keeps this node's CNI configuration and the routes to other nodes' pods.
type reconciler struct {
	hostIP  string
	cniPath string
	written string
}

// everything selects every node; a function so the selector reads as intent at the call.
func everything() labels.Selector { return labels.Everything() }

// reconcile writes the CNI configuration once this node has PodCIDRs and replaces the route
// to every other node's PodCIDRs, one per family, through that node's address of the family.
func (r *reconciler) reconcile(nodes []*corev1.Node) error {
	var errs []error
	for _, node := range nodes {
		addrs := internalIPs(node)
		if containsIP(addrs, r.hostIP) {
			if err := r.writeCNIConfig(node); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		for _, cidr := range node.Spec.PodCIDRs {
			if err := routeVia(cidr, addrs); err != nil {
				errs = append(errs, fmt.Errorf("node %s: %w", node.Name, err))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%v", errs)
	}
	return nil
}

// routeVia sends a PodCIDR through the node address of the same family.
func routeVia(cidr string, addrs []net.IP) error {
	_, dst, err := net.ParseCIDR(cidr)
	if err != nil {
		return fmt.Errorf("PodCIDR %q: %w", cidr, err)
	}
	for _, gw := range addrs {
		if netutils.IsIPv6(gw) != netutils.IsIPv6CIDR(dst) {
			continue
		}
		route := &netlink.Route{Dst: dst, Gw: gw}
		if err := netlink.RouteReplace(route); err != nil {
			return fmt.Errorf("route %s via %s: %w", dst, gw, err)
		}
		klog.V(4).Infof("route %s via %s", dst, gw)
		return nil
	}
	return nil
}

// internalIPs lists a node's InternalIP addresses.
func internalIPs(node *corev1.Node) []net.IP {
	var ips []net.IP
	for _, a := range node.Status.Addresses {
		if a.Type != corev1.NodeInternalIP {
			continue
		}
		if ip := netutils.ParseIPSloppy(a.Address); ip != nil {
			ips = append(ips, ip)
		}
	}
	return ips
}

// containsIP reports whether want is among ips.
func containsIP(ips []net.IP, want string) bool {
	w := netutils.ParseIPSloppy(want)
	for _, ip := range ips {
		if ip.Equal(w) {
			return true
		}
	}
	return false
}
