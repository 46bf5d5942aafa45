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

package options

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"k8s.io/apiserver/pkg/util/compatibility"
	basecompatibility "k8s.io/component-base/compatibility"

	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/staging-patches/apiserver/pkg/server/options/dualstack"
)

const (
	hostIPv4 = "192.0.2.10"
	hostIPv6 = "2001:db8::10"

	dualIPv4First = "10.96.0.0/16,fd00:10:96::/108"
	dualIPv6First = "fd00:10:96::/108,10.96.0.0/16"
	singleIPv4    = "10.96.0.0/16"

	gateOn = "--feature-gates=DualStackAPIServer=true"
)

// noCertFlags point at serving files Complete never reads, so it generates no self-signed certificate.
var noCertFlags = []string{"--tls-cert-file=/nonexistent/serving.crt", "--tls-private-key-file=/nonexistent/serving.key"}

// errNoHostAddress is what a host without a family's address answers.
var errNoHostAddress = errors.New("no acceptable interface with global unicast address found on host")

// host answers like upstream's utilnet.ResolveBindAddress on a host with the
// given addresses ("" for none): a specific bind address as is, otherwise the
// host's address of the bind address's family, else of the other family.
func host(v4, v6 string) dualstack.Resolver {
	return func(bind net.IP) (net.IP, error) {
		if bind != nil && !bind.IsUnspecified() && !bind.IsLoopback() {
			return bind, nil
		}
		preferred, other := v4, v6
		if bind != nil && bind.To4() == nil {
			preferred, other = v6, v4
		}
		for _, ip := range []string{preferred, other} {
			if ip != "" {
				return net.ParseIP(ip), nil
			}
		}
		return nil, errNoHostAddress
	}
}

// newTestRegistry returns a component registry of its own with netfork's
// gate, so no test's flags touch another's.
func newTestRegistry(t *testing.T) basecompatibility.ComponentGlobalsRegistry {
	t.Helper()
	registry, err := features.NewRegistry(compatibility.DefaultKubeEffectiveVersionForTest())
	if err != nil {
		t.Fatalf("registering the kube component: %v", err)
	}
	return registry
}

// newTestOptions returns netfork's options on a flag set and registry of their
// own, with resolve as the host.
func newTestOptions(t *testing.T, resolve dualstack.Resolver) (*ServerRunOptions, *pflag.FlagSet) {
	t.Helper()
	s := NewServerRunOptions()
	s.GenericServerRunOptions.ComponentGlobalsRegistry = newTestRegistry(t)
	s.resolve = resolve
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, f := range s.Flags().FlagSets {
		fs.AddFlagSet(f)
	}
	return s, fs
}

// complete parses args as the command does and completes the options.
func complete(t *testing.T, resolve dualstack.Resolver, args ...string) (*ServerRunOptions, CompletedOptions, error) {
	t.Helper()
	s, fs := newTestOptions(t, resolve)
	if err := fs.Parse(append(append([]string{}, noCertFlags...), args...)); err != nil {
		t.Fatalf("parsing %v: %v", args, err)
	}
	if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
		t.Fatalf("applying feature gates: %v", err)
	}
	completed, err := s.Complete(context.Background())
	return s, completed, err
}

// upstreamCannotResolve tells whether err is upstream's default failing to find a host address.
func upstreamCannotResolve(err error) bool {
	return err != nil && strings.Contains(err.Error(), "Unable to find suitable network address")
}

func ipStrings(ips []net.IP) []string {
	out := make([]string, 0, len(ips))
	for _, ip := range ips {
		out = append(out, ip.String())
	}
	return out
}

// sameAddresses compares ips with want, where "*" stands for any one address.
func sameAddresses(ips []net.IP, want []string) bool {
	got := ipStrings(ips)
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		if want[i] != "*" && net.ParseIP(want[i]).String() != got[i] {
			return false
		}
	}
	return true
}

func joinErrors(errs []error) string {
	s := make([]string, 0, len(errs))
	for _, err := range errs {
		s = append(s, err.Error())
	}
	return fmt.Sprint(s)
}
