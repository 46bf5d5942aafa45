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

package framework

import (
	"fmt"
	"net"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/component-base/featuregate"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/cmd/kube-apiserver/app"
)

// DefaultServiceCIDRs are the service CIDRs test apiservers get unless a test overrides them; local-up's too.
const DefaultServiceCIDRs = "10.96.0.0/16,fd00:10:96::/108"

// Option changes how a test apiserver is started.
type Option func(*serverOptions)

type serverOptions struct {
	flags        []string
	featureGates map[featuregate.Feature]bool
	etcdPrefix   string
	// listenerFromFlags leaves binding to the apiserver's --bind-address.
	listenerFromFlags bool
	// configure changes an in-process apiserver's configuration before it is completed.
	configure []func(*app.Config)
	// servingIPs are IP SANs the serving certificate names beside the defaults.
	servingIPs []net.IP
}

// WithFlags appends kube-apiserver flags after the framework's defaults, so they override them.
func WithFlags(flags ...string) Option {
	return func(o *serverOptions) { o.flags = append(o.flags, flags...) }
}

// WithFeatureGates sets the apiserver's feature gates with --feature-gates;
// each apiserver has a gate of its own, so tests with different gates may run in parallel.
func WithFeatureGates(gates map[featuregate.Feature]bool) Option {
	return func(o *serverOptions) {
		if o.featureGates == nil {
			o.featureGates = map[featuregate.Feature]bool{}
		}
		for k, v := range gates {
			o.featureGates[k] = v
		}
	}
}

// WithEtcdPrefix stores the cluster under prefix, so several apiservers of a test share one cluster.
func WithEtcdPrefix(prefix string) Option {
	return func(o *serverOptions) { o.etcdPrefix = prefix }
}

// WithListenerFromFlags lets the apiserver bind what --bind-address says, on a
// port free on 127.0.0.1 and ::1, instead of the framework's 127.0.0.1 listener;
// the client talks to the primary address. Dual-stack tests need it.
func WithListenerFromFlags() Option {
	return func(o *serverOptions) { o.listenerFromFlags = true }
}

// WithConfig changes an in-process apiserver's configuration before it is
// completed, for what no flag sets (e.g. the endpoint reconciler's interval);
// apiservers run as processes ignore it.
func WithConfig(configure func(*app.Config)) Option {
	return func(o *serverOptions) { o.configure = append(o.configure, configure) }
}

// WithShortIntervals shortens, to a second each, two intervals no flag sets:
// the ServiceCIDR deletion grace period (60 s), so a deleted ServiceCIDR
// whose addresses are covered is gone in a second, and the endpoint reconcile
// interval (10 s), at which the apiservers decide the `kubernetes` Service's
// shape and recreate it when it was deleted.
func WithShortIntervals() Option {
	return WithConfig(func(c *app.Config) {
		c.KubeAPIs.ServiceCIDRController.DeletionGracePeriod = time.Second
		c.KubeAPIs.EndpointReconcilerConfig.Interval = time.Second
	})
}

// WithServingIPs adds IP SANs to the apiserver's serving certificate, which
// names loopback and the default range's `kubernetes` Service addresses
// (10.96.0.1, fd00:10:96::1) without it.
func WithServingIPs(ips ...string) Option {
	return func(o *serverOptions) {
		for _, ip := range ips {
			o.servingIPs = append(o.servingIPs, netutils.ParseIPSloppy(ip))
		}
	}
}

var prefixCounter atomic.Int64

var unsafePrefixChars = regexp.MustCompile(`[^a-zA-Z0-9-]+`)

// NewEtcdPrefix returns a prefix no other test of the package uses.
func NewEtcdPrefix(t testing.TB) string {
	name := strings.ToLower(unsafePrefixChars.ReplaceAllString(t.Name(), "-"))
	return fmt.Sprintf("/netfork-test/%s-%d", name, prefixCounter.Add(1))
}

func newServerOptions(t testing.TB, opts []Option) *serverOptions {
	o := &serverOptions{}
	for _, opt := range opts {
		opt(o)
	}
	if o.etcdPrefix == "" {
		o.etcdPrefix = NewEtcdPrefix(t)
	}
	return o
}

// defaultFlags are the flags every test apiserver starts with, before the test's own.
func defaultFlags(etcd, prefix string, creds *credentials) []string {
	flags := []string{
		"--etcd-servers=" + etcd,
		"--etcd-prefix=" + prefix,
		"--service-cluster-ip-range=" + DefaultServiceCIDRs,
		"--service-node-port-range=30000-32767",
		"--authorization-mode=Node,RBAC",
		"--allow-privileged=true",
		// Endpoints may not hold loopback addresses, and test apiservers serve on loopback.
		"--endpoint-reconciler-type=none",
	}
	return append(flags, creds.APIServerFlags()...)
}
