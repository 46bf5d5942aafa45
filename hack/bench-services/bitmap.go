package main

import (
	"context"
	"fmt"
	"math/big"
	"math/bits"
	"net/netip"
	"strconv"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

const (
	// etcdPrefix is kube-apiserver's default --etcd-prefix.
	etcdPrefix = "/registry"
	// clusterIPBitmapKey and nodePortBitmapKey are where upstream (and netfork) keep the
	// legacy bitmaps, below etcdPrefix.
	clusterIPBitmapKey = "/ranges/serviceips"
	nodePortBitmapKey  = "/ranges/servicenodeports"
)

// etcdBitmaps reads the legacy bitmaps straight from the run's etcd, since no API serves them.
type etcdBitmaps struct {
	client *clientv3.Client
}

// readBitmap returns the RangeAllocation stored at key, nil if there is none.
func (b etcdBitmaps) readBitmap(ctx context.Context, key string) (*corev1.RangeAllocation, error) {
	resp, err := b.client.Get(ctx, etcdPrefix+key)
	if err != nil {
		return nil, fmt.Errorf("reading %s from etcd: %w", etcdPrefix+key, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, nil
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(resp.Kvs[0].Value, nil, &corev1.RangeAllocation{})
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", etcdPrefix+key, err)
	}
	ra, ok := obj.(*corev1.RangeAllocation)
	if !ok {
		return nil, fmt.Errorf("%s holds a %T, not a RangeAllocation", etcdPrefix+key, obj)
	}
	return ra, nil
}

// checkClusterIPBitmap checks the ClusterIP bitmap marks exactly the ClusterIPs in its
// range. Bit i stands for the address network+1+i (upstream's layout; IPv4 only here).
func checkClusterIPBitmap(p *problems, ra *corev1.RangeAllocation, clusterIPs map[string]string) {
	if ra == nil {
		p.addf("no ClusterIP bitmap at %s", etcdPrefix+clusterIPBitmapKey)
		return
	}
	prefix, err := netip.ParsePrefix(ra.Range)
	if err != nil || !prefix.Addr().Is4() {
		p.addf("ClusterIP bitmap range %q is not an IPv4 CIDR", ra.Range)
		return
	}
	base := ipv4Uint(prefix.Masked().Addr()) + 1
	held := map[string]string{}
	for ip, holder := range clusterIPs {
		if addr, err := netip.ParseAddr(ip); err == nil && addr.Is4() && prefix.Contains(addr) {
			held[ip] = holder
		}
	}
	// The count comes first, so it survives maxProblems when many addresses are unmarked.
	if n := popcount(ra.Data); n != len(held) {
		p.addf("ClusterIP bitmap marks %d addresses, Services hold %d in %s", n, len(held), ra.Range)
	}
	marks := new(big.Int).SetBytes(ra.Data)
	for ip, holder := range held {
		if marks.Bit(int(ipv4Uint(netip.MustParseAddr(ip))-base)) == 0 {
			p.addf("ClusterIP %s of Service %s is not marked in the bitmap", ip, holder)
		}
	}
}

// checkNodePortBitmap checks the NodePort bitmap marks exactly the NodePorts Services
// hold; bit i stands for port base+i.
func checkNodePortBitmap(p *problems, ra *corev1.RangeAllocation, nodePorts map[string]string) {
	if ra == nil {
		p.addf("no NodePort bitmap at %s", etcdPrefix+nodePortBitmapKey)
		return
	}
	first, last, err := parsePortRange(ra.Range)
	if err != nil {
		p.addf("NodePort bitmap: %v", err)
		return
	}
	held := map[int]string{}
	for key, holder := range nodePorts {
		if port, err := strconv.Atoi(key); err == nil && port >= first && port <= last {
			held[port] = holder
		}
	}
	if n := popcount(ra.Data); n != len(held) {
		p.addf("NodePort bitmap marks %d ports, Services hold %d in %s", n, len(held), ra.Range)
	}
	marks := new(big.Int).SetBytes(ra.Data)
	for port, holder := range held {
		if marks.Bit(port-first) == 0 {
			p.addf("NodePort %d of Service %s is not marked in the bitmap", port, holder)
		}
	}
}

// parsePortRange reads a "first-last" port range.
func parsePortRange(s string) (first, last int, err error) {
	a, b, ok := strings.Cut(s, "-")
	if ok {
		first, err = strconv.Atoi(a)
	}
	if ok && err == nil {
		last, err = strconv.Atoi(b)
	}
	if !ok || err != nil || first > last {
		return 0, 0, fmt.Errorf("range %q is not first-last", s)
	}
	return first, last, nil
}

// ipv4Uint is an IPv4 address as a number, for offsets into the bitmap.
func ipv4Uint(addr netip.Addr) uint32 {
	b := addr.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// popcount counts the marks in a bitmap.
func popcount(data []byte) int {
	n := 0
	for _, b := range data {
		n += bits.OnesCount8(b)
	}
	return n
}
