package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	kubefeatures "k8s.io/kubernetes/pkg/features"
)

const (
	// DualStackAPIServer lets the kube-apiserver bind, advertise and publish one
	// address per IP family (KEP-2438), which upstream never implemented.
	DualStackAPIServer featuregate.Feature = "DualStackAPIServer"

	// MultiCIDRServiceAllocator is upstream's gate (KEP-1880), unlocked by netfork:
	// false allocates ClusterIPs from the legacy bitmaps only.
	MultiCIDRServiceAllocator = kubefeatures.MultiCIDRServiceAllocator

	// DisableAllocatorDualWrite is upstream's gate, unlocked by netfork: false
	// mirrors every IPAddress allocation into the legacy bitmaps, for clusters
	// that still run bitmap-based apiservers.
	DisableAllocatorDualWrite = kubefeatures.DisableAllocatorDualWrite
)

// binaryVersion is the version netfork's own gate is evaluated at.
var binaryVersion = version.MustParse("1.37")

// netforkFeatureGates are the gates netfork adds to upstream's feature gate.
var netforkFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	DualStackAPIServer: {
		{Version: binaryVersion, Default: false, PreRelease: featuregate.Alpha},
	},
}

// unlockedFeatureGates are upstream gates that netfork serves from Gate, unlocked.
var unlockedFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	MultiCIDRServiceAllocator: {
		{Version: binaryVersion, Default: true, PreRelease: featuregate.GA},
	},
	DisableAllocatorDualWrite: {
		{Version: binaryVersion, Default: true, PreRelease: featuregate.GA},
	},
}

// Gate holds the upstream gates netfork unlocks. Tests set them here, e.g. with
// featuregatetesting.SetFeatureGateDuringTest(t, features.Gate, features.MultiCIDRServiceAllocator, false).
var Gate = newUnlockedGate()

func newUnlockedGate() featuregate.MutableVersionedFeatureGate {
	g := featuregate.NewVersionedFeatureGate(binaryVersion)
	if err := g.AddVersioned(unlockedFeatureGates); err != nil {
		panic(err) // the specs above are constant; an error here is a programming error
	}
	return g
}

// AddToGate registers netfork's gates on gate; adding them twice is harmless,
// so every apiserver a test process starts may call it.
func AddToGate(gate featuregate.MutableVersionedFeatureGate) error {
	return gate.AddVersioned(netforkFeatureGates)
}

// IsUnlocked tells whether netfork serves f from Gate rather than upstream's gate.
func IsUnlocked(f featuregate.Feature) bool {
	_, ok := unlockedFeatureGates[f]
	return ok
}

// Enabled answers for any gate: the unlocked ones from Gate, the rest from upstream's.
func Enabled(f featuregate.Feature) bool {
	if IsUnlocked(f) {
		return Gate.Enabled(f)
	}
	return utilfeature.DefaultFeatureGate.Enabled(f)
}
