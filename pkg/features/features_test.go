package features

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
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
