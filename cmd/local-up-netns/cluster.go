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
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/netfork/netfork/internal/etcd"
	"github.com/netfork/netfork/internal/pki"
)

const (
	// serviceClusterIPRange is local-up's: dual-stack, as a dual bind address requires.
	serviceClusterIPRange = "10.96.0.0/16,fd00:10:96::/108"
	// serviceNodePortRange is upstream's default, spelled out so logs show it.
	serviceNodePortRange = "30000-32767"
	// etcdInHost is where every apiserver finds etcd: its own namespace's
	// loopback, which this command forwards to the embedded etcd.
	etcdInHost = "127.0.0.1:2379"
)

// run starts etcd, the forwarders and one apiserver per host, prints the ready
// line once every apiserver serves on both families, and keeps them up until
// ctx ends (nil) or a component fails (an error); either way nothing it
// started is left running.
func run(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	start := time.Now()
	ipPath, err := exec.LookPath("ip")
	if err != nil {
		return fmt.Errorf("running apiservers in network namespaces needs the ip command (iproute2): %w", err)
	}
	for _, h := range o.Hosts {
		if _, err := os.Stat(filepath.Join(netnsDir, h.Netns)); err != nil {
			return fmt.Errorf("--host %s: no such network namespace (hack/local-up-netns.sh makes them): %w", h.Netns, err)
		}
	}
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return fmt.Errorf("--data-dir %s: %w", o.DataDir, err)
	}
	l := newLayout(dataDir)
	// Every run is a new cluster: a kubernetes Service left by an earlier one would
	// show endpoints this run never published.
	if err := os.RemoveAll(l.etcdDir); err != nil {
		return fmt.Errorf("--data-dir: clearing etcd: %w", err)
	}
	if err := os.MkdirAll(l.logDir, 0o755); err != nil {
		return fmt.Errorf("--data-dir: %w", err)
	}
	serviceIPs := firstServiceIPs()
	certs, err := pki.Ensure(l.pkiDir, pki.DefaultServingSANs(netIPs(serviceIPs), netIPs(o.hostAddresses())))
	if err != nil {
		return err
	}

	server, err := etcd.Start(ctx, etcd.Config{DataDir: l.etcdDir, LogFile: l.etcdLog(), UnsafeNoFsync: true})
	if err != nil {
		return err
	}
	defer server.Stop()
	progress(stderr, "etcd ready at %s", server.ClientURL)
	etcdAddr := strings.TrimPrefix(server.ClientURL, "http://")
	for _, h := range o.Hosts {
		ln, err := listenIn(h.Netns, etcdInHost)
		if err != nil {
			return err
		}
		defer forward(ln, (&net.Dialer{}).DialContext, etcdAddr).Close()
	}

	var servers []*apiserver
	defer func() {
		progress(stderr, "stopping %d apiserver(s)", len(servers))
		stopAPIServers(servers)
	}()
	for _, h := range o.Hosts {
		a, err := startAPIServer(ipPath, o.APIServerBinary, h, apiserverArgs(o, h, l, certs.Paths), l.apiserverLog(h.Netns))
		if err != nil {
			return err
		}
		servers = append(servers, a)
	}
	progress(stderr, "started %d apiserver(s), logs in %s", len(servers), l.logDir)
	if err := waitReady(ctx, certs, servers, o.Port, o.ReadyTimeout); err != nil {
		return err
	}

	// The kubeconfig reaches the first host's apiserver through a loopback port
	// of the root namespace, which has no route into the hosts' network.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening for the kubeconfig's endpoint: %w", err)
	}
	defer forward(ln, dialerIn(o.Hosts[0].Netns), hostPort(o.Hosts[0].IPv4, o.Port)).Close()
	if err := pki.WriteKubeconfig(l.kubeconfig, "https://"+ln.Addr().String(), certs); err != nil {
		return err
	}
	if err := writeHostsFile(l.hosts, o.Port, certs.CACert, serviceIPs, servers); err != nil {
		return err
	}
	fmt.Fprintln(stdout, readyLine(time.Since(start), o, l, ln.Addr().String()))

	exited := make(chan *apiserver, len(servers))
	for _, a := range servers {
		go func() {
			<-a.Done()
			exited <- a
		}()
	}
	select {
	case <-ctx.Done():
		return nil
	case a := <-exited:
		return a.ExitError()
	case err := <-server.Err():
		return fmt.Errorf("etcd failed (log: %s): %w", l.etcdLog(), err)
	}
}

// apiserverArgs are the flags of h's apiserver: bound and advertised on both of
// h's addresses, then the PKI's flags, then the user's, which win.
func apiserverArgs(o *options, h host, l layout, p pki.Paths) []string {
	pair := h.IPv4.String() + "," + h.IPv6.String()
	args := []string{
		"--bind-address=" + pair,
		"--advertise-address=" + pair,
		"--secure-port=" + strconv.Itoa(o.Port),
		"--feature-gates=DualStackAPIServer=true",
		"--etcd-servers=http://" + etcdInHost,
		"--service-cluster-ip-range=" + serviceClusterIPRange,
		"--service-node-port-range=" + serviceNodePortRange,
		"--authorization-mode=Node,RBAC",
		"--cert-dir=" + l.certDir,
	}
	args = append(args, p.APIServerFlags()...)
	return append(args, o.APIServerArgs...)
}

// firstServiceIPs are the kubernetes Service's ClusterIPs: the first address of
// each service range, primary first.
func firstServiceIPs() []netip.Addr {
	var ips []netip.Addr
	for _, cidr := range strings.Split(serviceClusterIPRange, ",") {
		ips = append(ips, netip.MustParsePrefix(cidr).Masked().Addr().Next())
	}
	return ips
}

// hostAddresses are every host's addresses, which the serving cert must name.
func (o *options) hostAddresses() []netip.Addr {
	var addrs []netip.Addr
	for _, h := range o.Hosts {
		addrs = append(addrs, h.addresses()...)
	}
	return addrs
}

// netIPs converts addresses for the PKI's certutil types.
func netIPs(addrs []netip.Addr) []net.IP {
	ips := make([]net.IP, 0, len(addrs))
	for _, a := range addrs {
		ips = append(ips, net.IP(a.AsSlice()))
	}
	return ips
}

// hostPort joins an address and a port, bracketing IPv6.
func hostPort(addr netip.Addr, port int) string {
	return netip.AddrPortFrom(addr, uint16(port)).String()
}

// readyLine tells the user the cluster is up and how to reach it.
func readyLine(elapsed time.Duration, o *options, l layout, local string) string {
	var at []string
	for _, h := range o.Hosts {
		at = append(at, fmt.Sprintf("%s https://%s https://%s", h.Netns, hostPort(h.IPv4, o.Port), hostPort(h.IPv6, o.Port)))
	}
	return fmt.Sprintf("local-up-netns: ready in %.1fs: %d apiserver(s): %s; kubeconfig: %s (via %s); hosts: %s",
		elapsed.Seconds(), len(o.Hosts), strings.Join(at, ", "), l.kubeconfig, local, l.hosts)
}

// progress reports a step on stderr, keeping stdout for the ready line.
func progress(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "local-up-netns: "+format+"\n", args...)
}
