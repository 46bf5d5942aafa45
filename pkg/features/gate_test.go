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

package features

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	"k8s.io/component-base/metrics/legacyregistry"
)

// newTestRegistry registers a Gate over a copy of upstream's gate as the kube
// component of a registry of its own, at binary version 1.37, as the
// kube-apiserver command does.
func newTestRegistry(t *testing.T) (*Gate, basecompatibility.ComponentGlobalsRegistry, *pflag.FlagSet) {
	t.Helper()
	registry, err := NewRegistry(basecompatibility.NewEffectiveVersionFromString("1.37", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	registry.AddFlags(fs)
	return registry.FeatureGateFor(basecompatibility.DefaultKubeComponent).(*Gate), registry, fs
}

// TestGateFlags parses --feature-gates and --emulated-version through
// upstream's component registry and checks each gate's value where netfork
// and upstream code read it.
func TestGateFlags(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		want        ClusterIPAllocation
		wantDualAPI bool
		wantErr     string
	}{
		{name: "defaults", want: IPAddresses},
		{name: "bitmap mode", args: []string{"--feature-gates=MultiCIDRServiceAllocator=false"}, want: Bitmaps},
		{name: "dual-write with a kube prefix", args: []string{"--feature-gates=kube:DisableAllocatorDualWrite=false"}, want: IPAddressesDualWrite},
		{name: "mixed with an upstream gate", args: []string{"--feature-gates=DualStackAPIServer=true, DisableAllocatorDualWrite=false," + string(settableUpstreamGate(t)) + "=false"}, want: IPAddressesDualWrite, wantDualAPI: true},
		{name: "repeated flag", args: []string{"--feature-gates=MultiCIDRServiceAllocator=false", "--feature-gates=DualStackAPIServer=true"}, want: Bitmaps, wantDualAPI: true},
		{name: "netfork's gate with a kube prefix", args: []string{"--feature-gates=kube:DualStackAPIServer=true"}, want: IPAddresses, wantDualAPI: true},
		{name: "bad bool keeps upstream's words", args: []string{"--feature-gates=MultiCIDRServiceAllocator=maybe"}, wantErr: `invalid value of MultiCIDRServiceAllocator=maybe, err: strconv.ParseBool`},
		{name: "no value keeps upstream's words", args: []string{"--feature-gates=DisableAllocatorDualWrite"}, wantErr: "missing bool value for DisableAllocatorDualWrite"},
		{name: "unknown gate still rejected", args: []string{"--feature-gates=NoSuchGate=true"}, wantErr: "unrecognized feature gate: NoSuchGate"},
		{name: "upstream's locks still hold for other gates", args: []string{"--feature-gates=" + string(lockedUpstreamGate(t)) + "=false"}, wantErr: "is locked to true"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gate, registry, fs := newTestRegistry(t)
			err := fs.Parse(tc.args)
			if err == nil {
				err = registry.Set()
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parsing %v: %v", tc.args, err)
			}
			if errs := registry.Validate(); len(errs) > 0 {
				t.Fatalf("validating %v: %v", tc.args, errs)
			}
			fromRegistry := registry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
			if got := ClusterIPAllocationOf(fromRegistry); got != tc.want {
				t.Errorf("allocation = %s, want %s", got, tc.want)
			}
			if got := gate.Enabled(DualStackAPIServer); got != tc.wantDualAPI {
				t.Errorf("%s = %t, want %t", DualStackAPIServer, got, tc.wantDualAPI)
			}
		})
	}
}

// settableUpstreamGate is a beta gate upstream 1.37 enables by default and lets
// users turn off: the first by name that depends on no gate and no gate depends on.
func settableUpstreamGate(t *testing.T) featuregate.Feature {
	gate := utilfeature.DefaultMutableFeatureGate
	deps := gate.Dependencies()
	needed := map[featuregate.Feature]bool{}
	for _, ds := range deps {
		for _, d := range ds {
			needed[d] = true
		}
	}
	all := gate.GetAll()
	names := slices.Sorted(maps.Keys(all))
	for _, name := range names {
		spec := all[name]
		if !Owns(name) && spec.PreRelease == featuregate.Beta && spec.Default && !spec.LockToDefault && len(deps[name]) == 0 && !needed[name] {
			return name
		}
	}
	t.Skip("upstream's gate has no settable beta gate to check against")
	return ""
}

// lockedUpstreamGate is a gate upstream 1.37 locks to true that netfork leaves alone.
func lockedUpstreamGate(t *testing.T) featuregate.Feature {
	for name, specs := range utilfeature.DefaultMutableFeatureGate.GetAllVersioned() {
		last := specs[len(specs)-1]
		if !Owns(name) && last.LockToDefault && last.Default && last.Version.AtLeast(version.MustParse("1.30")) {
			return name
		}
	}
	t.Skip("upstream's gate has no gate locked to true to check against")
	return ""
}

// TestGateEmulatedVersion checks the unlocked gates follow upstream's specs of
// the emulated release: unlocked where upstream had not locked them yet, and
// settable where upstream at 1.37 refuses.
func TestGateEmulatedVersion(t *testing.T) {
	gate, registry, fs := newTestRegistry(t)
	if err := fs.Parse([]string{"--emulated-version=1.34", "--feature-gates=MultiCIDRServiceAllocator=false"}); err != nil {
		t.Fatal(err)
	}
	if err := registry.Set(); err != nil {
		t.Fatalf("netfork must accept MultiCIDRServiceAllocator=false at 1.34: %v", err)
	}
	if gate.Enabled(MultiCIDRServiceAllocator) {
		t.Errorf("%s still on at emulated 1.34", MultiCIDRServiceAllocator)
	}
	if got := gate.EmulationVersion().String(); got != "1.34" {
		t.Errorf("emulation version = %s, want 1.34", got)
	}
	// upstream's own gate still refuses it: the lock is upstream's, unchanged
	upstream := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	if err := upstream.Set("MultiCIDRServiceAllocator=false"); err == nil {
		t.Errorf("upstream's gate accepted MultiCIDRServiceAllocator=false at 1.37; netfork's unlocking is no longer needed")
	}
}

func TestGateRefusesDualWriteWithoutIPAddresses(t *testing.T) {
	_, registry, fs := newTestRegistry(t)
	if err := fs.Parse([]string{"--feature-gates=MultiCIDRServiceAllocator=false,DisableAllocatorDualWrite=false"}); err != nil {
		t.Fatal(err)
	}
	if err := registry.Set(); err != nil {
		t.Fatal(err)
	}
	errs := registry.Validate()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "DisableAllocatorDualWrite=false (dual-write) needs MultiCIDRServiceAllocator=true") {
		t.Fatalf("Validate() = %v, want the one dual-write error", errs)
	}
	if strings.Contains(errs[0].Error(), "\n") {
		t.Errorf("error is not one line: %q", errs[0])
	}
}

// TestGateKnownFeatures checks --feature-gates' help lists netfork's gates once, as settable.
func TestGateKnownFeatures(t *testing.T) {
	gate, _, _ := newTestRegistry(t)
	counts := map[string]int{}
	for _, s := range gate.KnownFeatures() {
		name, _, _ := strings.Cut(s, "=")
		counts[name]++
	}
	// GA gates are hidden from the list, as upstream hides them
	if counts[string(DualStackAPIServer)] != 1 {
		t.Errorf("help lists %s %d times, want once", DualStackAPIServer, counts[string(DualStackAPIServer)])
	}
	for name, n := range counts {
		if n != 1 {
			t.Errorf("help lists %s %d times", name, n)
		}
	}
}

func TestGateMetrics(t *testing.T) {
	upstreamGate := settableUpstreamGate(t)
	gate, registry, fs := newTestRegistry(t)
	if err := fs.Parse([]string{"--feature-gates=MultiCIDRServiceAllocator=false,DualStackAPIServer=true," + string(upstreamGate) + "=false"}); err != nil {
		t.Fatal(err)
	}
	if err := registry.Set(); err != nil {
		t.Fatal(err)
	}
	gate.AddMetrics()
	want := map[string]float64{
		string(MultiCIDRServiceAllocator): 0, // upstream's gate says 1: netfork's value must win
		string(DisableAllocatorDualWrite): 1,
		string(DualStackAPIServer):        1,
		string(upstreamGate):              0, // upstream's, set through Gate
	}
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "kubernetes_feature_enabled" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if _, ok := want[l.GetValue()]; ok && l.GetName() == "name" {
					got[l.GetValue()] = m.GetGauge().GetValue()
				}
			}
		}
	}
	for name, v := range want {
		if g, ok := got[name]; !ok || g != v {
			t.Errorf("kubernetes_feature_enabled{name=%q} = %v (present %t), want %v", name, g, ok, v)
		}
	}
}
