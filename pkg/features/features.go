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
	"k8s.io/apimachinery/pkg/util/version"
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

// netforkFeatureGates are the gates netfork adds; each spec's version is the
// release netfork introduced it in, not the binary's version.
var netforkFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	DualStackAPIServer: {
		{Version: version.MustParse("1.37"), Default: false, PreRelease: featuregate.Alpha},
	},
}

// unlockedFeatureGates are upstream's gates that netfork serves with upstream's
// specs minus the lock.
var unlockedFeatureGates = []featuregate.Feature{MultiCIDRServiceAllocator, DisableAllocatorDualWrite}

// unlocked returns upstream's specs of f without LockToDefault; a stage that
// only locked the previous one is dropped, since featuregate refuses a
// transition that changes nothing.
func unlocked(specs featuregate.VersionedSpecs) featuregate.VersionedSpecs {
	var out featuregate.VersionedSpecs
	for _, s := range specs {
		s.LockToDefault = false
		if n := len(out); n > 0 && out[n-1].PreRelease == s.PreRelease && out[n-1].Default == s.Default {
			continue
		}
		out = append(out, s)
	}
	return out
}
