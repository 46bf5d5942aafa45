package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const (
	// DualStackAPIServer lets the kube-apiserver bind, advertise and publish one
	// address per IP family (KEP-2438), which upstream never implemented.
	DualStackAPIServer featuregate.Feature = "DualStackAPIServer"
)

// netforkFeatureGates are the versioned specs of the gates netfork owns.
var netforkFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	DualStackAPIServer: {
		{Version: version.MustParse("1.37"), Default: false, PreRelease: featuregate.Alpha},
	},
}

// AddToGate registers netfork's gates on gate; adding them twice is harmless,
// so every apiserver a test process starts may call it.
func AddToGate(gate featuregate.MutableVersionedFeatureGate) error {
	return gate.AddVersioned(netforkFeatureGates)
}
