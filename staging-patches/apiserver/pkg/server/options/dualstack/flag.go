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
	"fmt"
	"net"
	"strings"

	"github.com/spf13/pflag"
)

// pairUsage is the sentence netfork adds to the help of a wrapped flag.
const pairUsage = " netfork: with the DualStackAPIServer feature gate, also a comma-separated pair of one IPv4 and one IPv6 address, primary first."

// AddressFlag is the Value of --bind-address or --advertise-address once
// wrapped: a single IP goes to upstream's Value unchanged, and a pair is kept
// until the feature gate is known, because --feature-gates may come later on
// the command line and only takes effect after parsing.
type AddressFlag struct {
	name     string
	upstream pflag.Value
	pair     string
	changed  bool
}

var _ pflag.Value = (*AddressFlag)(nil)

// WrapAddressFlag replaces the Value of fs's flag name with an AddressFlag, so the
// flag keeps upstream's name, type, default and help, plus one sentence.
func WrapAddressFlag(fs *pflag.FlagSet, name string) (*AddressFlag, error) {
	f := fs.Lookup(name)
	if f == nil {
		return nil, fmt.Errorf("no --%s flag to wrap", name)
	}
	if v, done := f.Value.(*AddressFlag); done {
		return v, nil
	}
	v := &AddressFlag{name: name, upstream: f.Value}
	f.Value = v
	f.Usage += pairUsage
	return v, nil
}

// Set hands a single address to upstream's Value; for a pair it stores the
// primary there too when it parses, so upstream readers see the primary.
func (v *AddressFlag) Set(value string) error {
	v.changed = true
	if !strings.Contains(value, ",") {
		v.pair = ""
		return v.upstream.Set(value)
	}
	v.pair = value
	primary, _, _ := strings.Cut(value, ",")
	if net.ParseIP(strings.TrimSpace(primary)) != nil {
		return v.upstream.Set(strings.TrimSpace(primary))
	}
	return nil
}

// Addresses returns the pair once the feature gate is known: nil when the flag
// holds one address (upstream's field has it), upstream's own parse error when
// dualStack is false, and both addresses, primary first, when it is true.
func (v *AddressFlag) Addresses(dualStack bool) ([]net.IP, error) {
	if v == nil || v.pair == "" {
		return nil, nil
	}
	if !dualStack {
		return nil, v.upstreamError()
	}
	return ParseAddresses(v.name, v.pair)
}

// upstreamError is the error pflag gives for the pair when the flag is upstream's IPVar.
func (v *AddressFlag) upstreamError() error {
	err := v.upstream.Set(v.pair)
	if err == nil {
		// an IP value never accepts a comma; keep the message upstream's anyway
		err = fmt.Errorf("failed to parse IP: %q", v.pair)
	}
	return fmt.Errorf("invalid argument %q for %q flag: %w", v.pair, "--"+v.name, err)
}

// Changed tells whether the flag was given, which an unset default cannot tell.
func (v *AddressFlag) Changed() bool { return v != nil && v.changed }

// String is the value as given, so logged flags and --help show the pair.
func (v *AddressFlag) String() string {
	if v.pair != "" {
		return v.pair
	}
	return v.upstream.String()
}

// Type is upstream's, so --help reads as upstream's does.
func (v *AddressFlag) Type() string { return v.upstream.Type() }
