package features

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"k8s.io/apimachinery/pkg/util/version"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

func TestAddToGate(t *testing.T) {
	gate := featuregate.NewVersionedFeatureGate(version.MustParse("1.37"))
	if err := AddToGate(gate); err != nil {
		t.Fatalf("AddToGate: %v", err)
	}
	if err := AddToGate(gate); err != nil {
		t.Fatalf("AddToGate twice: %v", err)
	}
	if gate.Enabled(DualStackAPIServer) {
		t.Errorf("%s is enabled by default, want disabled", DualStackAPIServer)
	}
	if err := gate.Set(string(DualStackAPIServer) + "=true"); err != nil {
		t.Fatalf("setting %s: %v", DualStackAPIServer, err)
	}
	if !gate.Enabled(DualStackAPIServer) {
		t.Errorf("%s=true did not enable the gate", DualStackAPIServer)
	}
}

func TestUnlockedGatesDefaultToUpstream(t *testing.T) {
	for _, f := range []featuregate.Feature{MultiCIDRServiceAllocator, DisableAllocatorDualWrite} {
		if !Enabled(f) {
			t.Errorf("%s defaults to false, want true as upstream 1.37", f)
		}
	}
	featuregatetesting.SetFeatureGateDuringTest(t, Gate, MultiCIDRServiceAllocator, false)
	if Enabled(MultiCIDRServiceAllocator) {
		t.Errorf("%s still enabled after setting it false on Gate", MultiCIDRServiceAllocator)
	}
}

// TestWrapFeatureGatesFlag parses --feature-gates as the kube-apiserver does and
// checks each gate lands in the gate that owns it.
func TestWrapFeatureGatesFlag(t *testing.T) {
	tests := []struct {
		name         string
		args         []string
		wantMultiCID bool
		wantDualW    bool
		wantDualAPI  bool
		wantErr      string
	}{
		{name: "defaults", args: nil, wantMultiCID: true, wantDualW: true},
		{name: "bitmap mode", args: []string{"--feature-gates=MultiCIDRServiceAllocator=false"}, wantDualW: true},
		{name: "dual-write with a kube prefix", args: []string{"--feature-gates=kube:DisableAllocatorDualWrite=false"}, wantMultiCID: true},
		{name: "mixed with an upstream-owned gate", args: []string{"--feature-gates=DualStackAPIServer=true, DisableAllocatorDualWrite=false"}, wantMultiCID: true, wantDualAPI: true},
		{name: "repeated flag", args: []string{"--feature-gates=MultiCIDRServiceAllocator=false", "--feature-gates=DualStackAPIServer=true"}, wantDualW: true, wantDualAPI: true},
		{name: "bad bool", args: []string{"--feature-gates=MultiCIDRServiceAllocator=maybe"}, wantErr: `invalid value of MultiCIDRServiceAllocator: "maybe"`},
		{name: "no value", args: []string{"--feature-gates=DisableAllocatorDualWrite"}, wantErr: "missing bool value for DisableAllocatorDualWrite"},
		{name: "unknown gate still rejected", args: []string{"--feature-gates=NoSuchGate=true"}, wantErr: "NoSuchGate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGatesDuringTest(t, Gate, featuregatetesting.FeatureOverrides{
				MultiCIDRServiceAllocator: true, DisableAllocatorDualWrite: true,
			})
			kubeGate := featuregate.NewVersionedFeatureGate(version.MustParse("1.37"))
			if err := AddToGate(kubeGate); err != nil {
				t.Fatal(err)
			}
			registry := basecompatibility.NewComponentGlobalsRegistry()
			if err := registry.Register(basecompatibility.DefaultKubeComponent,
				basecompatibility.NewEffectiveVersionFromString("1.37", "", ""), kubeGate); err != nil {
				t.Fatal(err)
			}
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			registry.AddFlags(fs)
			if err := WrapFeatureGatesFlag(fs); err != nil {
				t.Fatal(err)
			}

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
			if got := Gate.Enabled(MultiCIDRServiceAllocator); got != tc.wantMultiCID {
				t.Errorf("%s = %t, want %t", MultiCIDRServiceAllocator, got, tc.wantMultiCID)
			}
			if got := Gate.Enabled(DisableAllocatorDualWrite); got != tc.wantDualW {
				t.Errorf("%s = %t, want %t", DisableAllocatorDualWrite, got, tc.wantDualW)
			}
			if got := kubeGate.Enabled(DualStackAPIServer); got != tc.wantDualAPI {
				t.Errorf("%s = %t, want %t", DualStackAPIServer, got, tc.wantDualAPI)
			}
		})
	}
}
