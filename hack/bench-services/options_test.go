package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// parseForTest parses args with both binaries pointing at an executable stand-in.
func parseForTest(t *testing.T, args ...string) (*options, error) {
	t.Helper()
	binary := filepath.Join(t.TempDir(), "kube-apiserver")
	if err := os.WriteFile(binary, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := newOptions()
	args = append([]string{"--netfork-binary=" + binary, "--upstream-binary=" + binary}, args...)
	return o, o.parse(pflag.NewFlagSet("test", pflag.ContinueOnError), args)
}

func TestOptionsDefaultsAreTheShortRun(t *testing.T) {
	o, err := parseForTest(t)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Ns, []int{1000, 10000}) || !slices.Equal(o.CIDRs, []int{0}) || o.Rounds != 1 || o.Workers != 100 {
		t.Errorf("defaults n=%v cidrs=%v rounds=%d workers=%d, want the short run", o.Ns, o.CIDRs, o.Rounds, o.Workers)
	}
	if !slices.Equal(o.Contenders, []string{"netfork", "netfork-dualwrite", "netfork-bitmap", "upstream", "floor-headless"}) {
		t.Errorf("default contenders %v", o.Contenders)
	}
}

func TestOptionsFull(t *testing.T) {
	o, err := parseForTest(t, "--full", "--rounds=5")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Ns, []int{1000, 10000, 30000}) || !slices.Equal(o.CIDRs, []int{0, 100, 1000}) || o.Rounds != 5 {
		t.Errorf("--full --rounds=5 gave n=%v cidrs=%v rounds=%d", o.Ns, o.CIDRs, o.Rounds)
	}
}

func TestOptionsErrorsNameTheFlag(t *testing.T) {
	tests := map[string][]string{
		"--n":                 {"--n=0"},
		"NodePorts":           {"--n=70000"},
		"--cidrs":             {"--cidrs=5000"},
		"--workers":           {"--workers=0"},
		"--rounds":            {"--rounds=0"},
		"--apiservers":        {"--apiservers=6"},
		"as many --workers":   {"--apiservers=3", "--workers=2"},
		"--contenders":        {"--contenders=netfork,nope"},
		"listed twice":        {"--contenders=netfork,netfork"},
		"--profile":           {"--profile", "--contenders=upstream"},
		"--profile-duration":  {"--profile", "--profile-duration=2m"},
		"--profile-phase":     {"--profile", "--profile-phase=list"},
		"unexpected argument": {"extra"},
	}
	for want, args := range tests {
		t.Run(want, func(t *testing.T) {
			_, err := parseForTest(t, args...)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("parse(%q) = %v, want an error naming %s", args, err, want)
			}
		})
	}
}

func TestOptionsRejectAMissingBinary(t *testing.T) {
	o := newOptions()
	err := o.parse(pflag.NewFlagSet("test", pflag.ContinueOnError), []string{"--upstream-binary=/nonexistent/kube-apiserver", "--contenders=upstream"})
	if err == nil || !strings.Contains(err.Error(), "--upstream-binary") {
		t.Errorf("parse = %v, want an error naming --upstream-binary", err)
	}
}

func TestExtraCIDRsAreDisjointFromTheDefault(t *testing.T) {
	for _, i := range []int{0, 1, 999, maxExtraCIDRs - 1} {
		got := extraCIDR(i)
		if got.Bits() != extraCIDRBits || strings.HasPrefix(got.String(), "10.96.") {
			t.Errorf("extraCIDR(%d) = %s", i, got)
		}
	}
	if got := extraCIDR(257).String(); got != "10.129.1.0/24" {
		t.Errorf("extraCIDR(257) = %s, want 10.129.1.0/24", got)
	}
	if got := extraCIDR(maxExtraCIDRs - 1).String(); got != "10.143.255.0/24" {
		t.Errorf("the last extra CIDR is %s, want 10.143.255.0/24, the end of 10.128.0.0/12", got)
	}
}
