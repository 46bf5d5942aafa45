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
	"net/netip"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/netfork/netfork/internal/cmdutil"
)

var (
	// hostIPv4Range and hostIPv6Range bound the hosts' addresses to the
	// benchmarking range and to unique local addresses, so the command is never
	// pointed at an address anything else uses.
	hostIPv4Range = netip.MustParsePrefix("198.18.0.0/15")
	hostIPv6Range = netip.MustParsePrefix("fc00::/7")
)

// host is one network namespace and the addresses its apiserver binds and advertises.
type host struct {
	Netns string
	IPv4  netip.Addr
	IPv6  netip.Addr
}

// options are local-up-netns's flags plus the kube-apiserver flags after "--".
type options struct {
	DataDir         string
	APIServerBinary string
	Port            int
	ReadyTimeout    time.Duration
	Hosts           []host
	APIServerArgs   []string

	rawHosts []string
}

func newOptions() *options {
	return &options{DataDir: "_output/netns", Port: 6443, ReadyTimeout: 3 * time.Minute}
}

// parse reads args (without the program name) and checks them.
func (o *options) parse(fs *pflag.FlagSet, args []string) error {
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "directory for the PKI, etcd, logs, kubeconfig and hosts.json; etcd starts empty every run")
	fs.StringVar(&o.APIServerBinary, "apiserver-binary", o.APIServerBinary, "netfork kube-apiserver to run in every namespace (required)")
	fs.IntVar(&o.Port, "port", o.Port, "secure port of every kube-apiserver")
	fs.DurationVar(&o.ReadyTimeout, "ready-timeout", o.ReadyTimeout, "how long to wait until every kube-apiserver serves /readyz on both families")
	fs.StringArrayVar(&o.rawHosts, "host", nil, "NETNS,IPV4,IPV6: a network namespace and the addresses its kube-apiserver binds and advertises (repeat per host)")
	var err error
	if o.APIServerArgs, err = cmdutil.ArgsAfterDash(fs, args, "kube-apiserver"); err != nil {
		return err
	}
	return o.complete()
}

// complete parses the hosts and rejects options the command cannot run with,
// naming the flag at fault.
func (o *options) complete() error {
	if o.APIServerBinary == "" {
		return fmt.Errorf("--apiserver-binary is required")
	}
	if strings.TrimSpace(o.DataDir) == "" {
		return fmt.Errorf("--data-dir must not be empty")
	}
	if o.Port < 1 || o.Port > 65535 {
		return fmt.Errorf("--port %d is not a valid port", o.Port)
	}
	if o.ReadyTimeout <= 0 {
		return fmt.Errorf("--ready-timeout %s must be positive", o.ReadyTimeout)
	}
	if len(o.rawHosts) == 0 {
		return fmt.Errorf("--host is required: give one NETNS,IPV4,IPV6 per host")
	}
	seen := map[string]string{}
	for _, raw := range o.rawHosts {
		h, err := parseHost(raw)
		if err != nil {
			return fmt.Errorf("--host %q: %w", raw, err)
		}
		for _, key := range []string{h.Netns, h.IPv4.String(), h.IPv6.String()} {
			if other, dup := seen[key]; dup {
				return fmt.Errorf("--host %q: %s is already used by --host %q", raw, key, other)
			}
			seen[key] = raw
		}
		o.Hosts = append(o.Hosts, h)
	}
	return nil
}

// parseHost reads NETNS,IPV4,IPV6.
func parseHost(raw string) (host, error) {
	parts := strings.Split(raw, ",")
	if len(parts) != 3 {
		return host{}, fmt.Errorf("want NETNS,IPV4,IPV6, got %d comma-separated fields", len(parts))
	}
	name := parts[0]
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name {
		return host{}, fmt.Errorf("%q is not a network namespace name", name)
	}
	v4, err := netip.ParseAddr(parts[1])
	if err != nil || !v4.Is4() || !hostIPv4Range.Contains(v4) {
		return host{}, fmt.Errorf("%q is not an IPv4 address in %s", parts[1], hostIPv4Range)
	}
	v6, err := netip.ParseAddr(parts[2])
	if err != nil || !v6.Is6() || v6.Zone() != "" || !hostIPv6Range.Contains(v6) {
		return host{}, fmt.Errorf("%q is not an IPv6 unique local address (%s)", parts[2], hostIPv6Range)
	}
	return host{Netns: name, IPv4: v4, IPv6: v6}, nil
}

// addresses are the host's addresses, IPv4 (the primary family) first.
func (h host) addresses() []netip.Addr {
	return []netip.Addr{h.IPv4, h.IPv6}
}
