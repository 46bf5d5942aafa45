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
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	featuremetrics "k8s.io/component-base/metrics/prometheus/feature"
)

// Gate is one apiserver's kube feature gate: netfork's own gate for the
// features netfork owns, upstream's for every other one.
type Gate struct {
	// MutableVersionedFeatureGate is upstream's gate; whatever Gate does not
	// override goes to it unchanged.
	featuregate.MutableVersionedFeatureGate

	// own holds DualStackAPIServer and the unlocked upstream gates.
	own featuregate.MutableVersionedFeatureGate
}

var _ featuregate.MutableVersionedFeatureGate = &Gate{}

// NewGate puts netfork's gates beside upstream, a kube feature gate holding
// upstream's specs (utilfeature.DefaultMutableFeatureGate, or a copy of it in
// tests), at upstream's emulation version.
func NewGate(upstream featuregate.MutableVersionedFeatureGate) (*Gate, error) {
	specs := map[featuregate.Feature]featuregate.VersionedSpecs{}
	for name, s := range netforkFeatureGates {
		specs[name] = s
	}
	known := upstream.GetAllVersioned()
	for _, name := range unlockedFeatureGates {
		s, ok := known[name]
		if !ok {
			return nil, fmt.Errorf("upstream's feature gate has no %s for netfork to unlock", name)
		}
		specs[name] = unlocked(s)
	}
	own := featuregate.NewVersionedFeatureGate(upstream.EmulationVersion())
	if err := own.AddVersioned(specs); err != nil {
		return nil, fmt.Errorf("registering netfork's feature gates: %w", err)
	}
	if err := own.SetEmulationVersionAndMinCompatibilityVersion(upstream.EmulationVersion(), upstream.MinCompatibilityVersion()); err != nil {
		return nil, err
	}
	return &Gate{MutableVersionedFeatureGate: upstream, own: own}, nil
}

// Owns tells whether netfork, not upstream's gate, answers for f.
func Owns(f featuregate.Feature) bool {
	if _, ok := netforkFeatureGates[f]; ok {
		return true
	}
	for _, u := range unlockedFeatureGates {
		if u == f {
			return true
		}
	}
	return false
}

// both are the special gates (AllAlpha, AllBeta) that reach either gate.
func both(f featuregate.Feature) bool {
	return f == "AllAlpha" || f == "AllBeta"
}

// Enabled answers f from the gate that owns it.
func (g *Gate) Enabled(f featuregate.Feature) bool {
	if Owns(f) {
		return g.own.Enabled(f)
	}
	return g.MutableVersionedFeatureGate.Enabled(f)
}

// Set takes "key=value,..." as featuregate does and hands each pair to the
// gate that owns its key, which parses and judges it with upstream's code.
func (g *Gate) Set(value string) error {
	var own, rest []string
	for _, item := range strings.Split(value, ",") {
		key, _, _ := strings.Cut(item, "=")
		switch f := featuregate.Feature(strings.TrimSpace(key)); {
		case both(f):
			own, rest = append(own, item), append(rest, item)
		case Owns(f):
			own = append(own, item)
		default:
			rest = append(rest, item)
		}
	}
	var errs []error
	if len(own) > 0 {
		errs = append(errs, g.own.Set(strings.Join(own, ",")))
	}
	if len(rest) > 0 {
		errs = append(errs, g.MutableVersionedFeatureGate.Set(strings.Join(rest, ",")))
	}
	return utilerrors.NewAggregate(errs)
}

// SetFromMap hands each entry of m to the gate that owns it.
func (g *Gate) SetFromMap(m map[string]bool) error {
	own, rest := map[string]bool{}, map[string]bool{}
	for k, v := range m {
		switch f := featuregate.Feature(k); {
		case both(f):
			own[k], rest[k] = v, v
		case Owns(f):
			own[k] = v
		default:
			rest[k] = v
		}
	}
	return utilerrors.NewAggregate([]error{g.own.SetFromMap(own), g.MutableVersionedFeatureGate.SetFromMap(rest)})
}

// Validate is upstream's validation of both gates plus netfork's rule that
// dual-write needs the IPAddress allocator: with MultiCIDRServiceAllocator
// off there is nothing to mirror into the bitmaps.
func (g *Gate) Validate() []error {
	errs := append(g.MutableVersionedFeatureGate.Validate(), g.own.Validate()...)
	if g.own.ExplicitlySet(DisableAllocatorDualWrite) && !g.own.Enabled(DisableAllocatorDualWrite) && !g.own.Enabled(MultiCIDRServiceAllocator) {
		errs = append(errs, fmt.Errorf("--feature-gates: %s=false (dual-write) needs %s=true: with the IPAddress allocator off the bitmaps are the only allocator and there is nothing to mirror",
			DisableAllocatorDualWrite, MultiCIDRServiceAllocator))
	}
	return errs
}

// KnownFeatures is upstream's list with netfork's entries in place of the ones it owns.
func (g *Gate) KnownFeatures() []string {
	var known []string
	for _, s := range g.MutableVersionedFeatureGate.KnownFeatures() {
		name, _, _ := strings.Cut(s, "=")
		if !Owns(featuregate.Feature(name)) {
			known = append(known, s)
		}
	}
	for _, s := range g.own.KnownFeatures() {
		name, _, _ := strings.Cut(s, "=")
		if Owns(featuregate.Feature(name)) {
			known = append(known, s)
		}
	}
	sort.Strings(known)
	return known
}

// GetAll is upstream's specs at the emulation version with netfork's in place of the ones it owns.
func (g *Gate) GetAll() map[featuregate.Feature]featuregate.FeatureSpec {
	return withOwn(g.MutableVersionedFeatureGate.GetAll(), g.own.GetAll())
}

// GetAllVersioned is upstream's versioned specs with netfork's in place of the ones it owns.
func (g *Gate) GetAllVersioned() map[featuregate.Feature]featuregate.VersionedSpecs {
	return withOwn(g.MutableVersionedFeatureGate.GetAllVersioned(), g.own.GetAllVersioned())
}

// withOwn puts the entries of own that netfork owns into upstream's.
func withOwn[V any](upstream, own map[featuregate.Feature]V) map[featuregate.Feature]V {
	for name, v := range own {
		if Owns(name) {
			upstream[name] = v
		}
	}
	return upstream
}

// Dependencies are upstream's, less those of the gates netfork owns (upstream's
// "DisableAllocatorDualWrite needs MultiCIDRServiceAllocator" is netfork's own rule in Validate).
func (g *Gate) Dependencies() map[featuregate.Feature][]featuregate.Feature {
	deps := g.MutableVersionedFeatureGate.Dependencies()
	for name := range deps {
		if Owns(name) {
			delete(deps, name)
		}
	}
	return deps
}

// AddMetrics records kubernetes_feature_enabled for every gate: upstream's
// first, then netfork's, whose values replace upstream's locked ones.
func (g *Gate) AddMetrics() {
	g.MutableVersionedFeatureGate.AddMetrics()
	for name, spec := range g.own.GetAll() {
		if Owns(name) {
			featuremetrics.RecordFeatureInfo(context.Background(), string(name), string(spec.PreRelease), g.own.Enabled(name))
		}
	}
}

// AddFlag registers Gate itself as --feature-gates on fs.
func (g *Gate) AddFlag(fs *pflag.FlagSet) {
	g.Close()
	fs.Var(flagValue{g}, "feature-gates", "A set of key=value pairs that describe feature gates for alpha/experimental features. "+
		"Options are:\n"+strings.Join(g.KnownFeatures(), "\n"))
}

// Close closes both gates to further Add calls.
func (g *Gate) Close() {
	g.MutableVersionedFeatureGate.Close()
	g.own.Close()
}

// OverrideDefault overrides f's default in the gate that owns it.
func (g *Gate) OverrideDefault(f featuregate.Feature, override bool) error {
	return g.owner(f).OverrideDefault(f, override)
}

// OverrideDefaultAtVersion overrides f's default at ver in the gate that owns it.
func (g *Gate) OverrideDefaultAtVersion(f featuregate.Feature, override bool, ver *version.Version) error {
	return g.owner(f).OverrideDefaultAtVersion(f, override, ver)
}

// ExplicitlySet tells whether f was set, in the gate that owns it.
func (g *Gate) ExplicitlySet(f featuregate.Feature) bool {
	return g.owner(f).ExplicitlySet(f)
}

// ResetFeatureValueToDefault resets f in the gate that owns it.
func (g *Gate) ResetFeatureValueToDefault(f featuregate.Feature) error {
	return g.owner(f).ResetFeatureValueToDefault(f)
}

// SetEmulationVersion moves both gates to emulationVersion.
func (g *Gate) SetEmulationVersion(emulationVersion *version.Version) error {
	return g.SetEmulationVersionAndMinCompatibilityVersion(emulationVersion, emulationVersion.SubtractMinor(1))
}

// SetEmulationVersionAndMinCompatibilityVersion moves both gates, so the
// unlocked gates take upstream's defaults of the emulated release.
func (g *Gate) SetEmulationVersionAndMinCompatibilityVersion(emulationVersion, minCompatibilityVersion *version.Version) error {
	if err := g.MutableVersionedFeatureGate.SetEmulationVersionAndMinCompatibilityVersion(emulationVersion, minCompatibilityVersion); err != nil {
		return err
	}
	return g.own.SetEmulationVersionAndMinCompatibilityVersion(emulationVersion, minCompatibilityVersion)
}

// DeepCopy copies both gates.
func (g *Gate) DeepCopy() featuregate.MutableVersionedFeatureGate {
	return &Gate{MutableVersionedFeatureGate: g.MutableVersionedFeatureGate.DeepCopy(), own: g.own.DeepCopy()}
}

// DeepCopyAndReset copies both gates' specs without their values.
func (g *Gate) DeepCopyAndReset() featuregate.MutableVersionedFeatureGate {
	return &Gate{MutableVersionedFeatureGate: g.MutableVersionedFeatureGate.DeepCopyAndReset(), own: g.own.DeepCopyAndReset()}
}

func (g *Gate) owner(f featuregate.Feature) featuregate.MutableVersionedFeatureGate {
	if Owns(f) {
		return g.own
	}
	return g.MutableVersionedFeatureGate
}

// String lists the explicitly set gates, as featuregate's flag value does.
func (g *Gate) String() string {
	var set []string
	for name := range g.GetAll() {
		if g.ExplicitlySet(name) {
			set = append(set, fmt.Sprintf("%s=%t", name, g.Enabled(name)))
		}
	}
	sort.Strings(set)
	return strings.Join(set, ",")
}

// flagValue makes Gate a pflag.Value.
type flagValue struct{ *Gate }

func (flagValue) Type() string { return "mapStringBool" }

// NewRegistry returns a component registry of its own whose kube component is
// a Gate over a copy of upstream's process-wide gate, at effectiveVersion, so
// that the flags of one in-process apiserver, or test, never touch another's.
func NewRegistry(effectiveVersion basecompatibility.MutableEffectiveVersion) (basecompatibility.ComponentGlobalsRegistry, error) {
	gate, err := NewGate(utilfeature.DefaultMutableFeatureGate.DeepCopy())
	if err != nil {
		return nil, err
	}
	registry := basecompatibility.NewComponentGlobalsRegistry()
	if err := registry.Register(basecompatibility.DefaultKubeComponent, effectiveVersion, gate); err != nil {
		return nil, err
	}
	return registry, nil
}
