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

package dualstack

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"time"

	"k8s.io/client-go/rest"
	netutils "k8s.io/utils/net"
)

const (
	// serviceName is the kubernetes Service's name relative to the pod's DNS
	// search path, so it resolves whatever the cluster domain is; every
	// apiserver serving certificate upstream and kubeadm issue names it.
	serviceName = "kubernetes.default.svc"
	// lookupTimeout bounds the one DNS lookup, because InClusterConfig, like
	// upstream's, takes no context.
	lookupTimeout = 10 * time.Second
)

// InClusterConfig returns client-go's in-cluster configuration (see
// rest.InClusterConfig, whose errors, rest.ErrNotInCluster included, it
// returns unchanged) with one difference: when the pod has no address of
// KUBERNETES_SERVICE_HOST's IP family but has one of the other, it dials the
// kubernetes Service's ClusterIP of that other family, which it gets by
// resolving kubernetes.default.svc, and verifies the serving certificate
// against that name, since apiservers usually list only their primary
// Service IP among their certificate's addresses.
func InClusterConfig() (*rest.Config, error) {
	return inCluster{
		getenv:   os.Getenv,
		base:     rest.InClusterConfig,
		podAddrs: net.InterfaceAddrs,
		resolver: net.DefaultResolver,
	}.config(context.Background())
}

// inCluster is what InClusterConfig reads from the pod, replaceable in tests.
type inCluster struct {
	getenv   func(string) string
	base     func() (*rest.Config, error)
	podAddrs func() ([]net.Addr, error)
	resolver Resolver
}

// config builds the configuration as InClusterConfig documents.
func (c inCluster) config(ctx context.Context) (*rest.Config, error) {
	host, port := c.getenv("KUBERNETES_SERVICE_HOST"), c.getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, rest.ErrNotInCluster
	}
	cfg, err := c.base()
	if err != nil {
		return nil, err
	}
	primary := netutils.IPFamilyOfString(host)
	if primary == netutils.IPFamilyUnknown {
		// A name rather than an address: the dialer picks the family, as upstream's would.
		return cfg, nil
	}
	families, err := c.podFamilies()
	if err != nil {
		return nil, err
	}
	if families[primary] {
		return cfg, nil
	}
	secondary := otherFamily(primary)
	if !families[secondary] {
		return nil, fmt.Errorf("in-cluster config: KUBERNETES_SERVICE_HOST=%s is unreachable: %w", host, ErrNoPodAddress)
	}
	addr, err := c.lookup(ctx, secondary)
	if err != nil {
		return nil, fmt.Errorf("in-cluster config: KUBERNETES_SERVICE_HOST=%s is IPv%s but the pod has IPv%s addresses only: %w", host, primary, secondary, err)
	}
	cfg.Host = "https://" + net.JoinHostPort(addr.String(), port)
	cfg.ServerName = serviceName
	return cfg, nil
}

// podFamilies reports which IP families the pod has a global unicast address
// of; loopback and link-local addresses (every IPv6 interface has one) reach
// no Service.
func (c inCluster) podFamilies() (map[netutils.IPFamily]bool, error) {
	addrs, err := c.podAddrs()
	if err != nil {
		return nil, fmt.Errorf("in-cluster config: listing the pod's addresses: %w", err)
	}
	families := map[netutils.IPFamily]bool{}
	for _, a := range addrs {
		if ip := addrIP(a); ip.IsGlobalUnicast() {
			families[netutils.IPFamilyOf(ip)] = true
		}
	}
	return families, nil
}

// lookup resolves the kubernetes Service's address of family.
func (c inCluster) lookup(ctx context.Context, family netutils.IPFamily) (netip.Addr, error) {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	addrs, err := c.resolver.LookupNetIP(ctx, "ip"+string(family), serviceName)
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return netip.Addr{}, fmt.Errorf("%s has no IPv%s address (%v): %w", serviceName, family, err, ErrNoServiceAddress)
	}
	if err != nil {
		return netip.Addr{}, fmt.Errorf("looking up %s for IPv%s: %w", serviceName, family, err)
	}
	for _, addr := range addrs {
		if addr = addr.Unmap(); netutils.IPFamilyOfString(addr.String()) == family {
			return addr, nil
		}
	}
	return netip.Addr{}, fmt.Errorf("%s has no IPv%s address (it resolves to %v): %w", serviceName, family, addrs, ErrNoServiceAddress)
}

// addrIP is the address of an interface address as net.InterfaceAddrs returns them.
func addrIP(a net.Addr) net.IP {
	switch v := a.(type) {
	case *net.IPNet:
		return v.IP
	case *net.IPAddr:
		return v.IP
	}
	return nil
}

// otherFamily is the family a dual-stack Service has besides f.
func otherFamily(f netutils.IPFamily) netutils.IPFamily {
	if f == netutils.IPv4 {
		return netutils.IPv6
	}
	return netutils.IPv4
}
