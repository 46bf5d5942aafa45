// Package features declares netfork's feature gates next to upstream's
// k8s.io/kubernetes/pkg/features (v1.37.1), which netfork keeps as-is for every
// gate it does not own.
//
// Upstream 1.37 locks MultiCIDRServiceAllocator and DisableAllocatorDualWrite to
// true, and a locked spec cannot be changed in upstream's feature gate. netfork
// keeps those two in a gate of its own (Gate), fed by the same --feature-gates
// flag (WrapFeatureGatesFlag), and netfork's code asks Enabled, which answers
// them from Gate and everything else from upstream's gate. Upstream code that
// still reads upstream's gate sees them locked to true; netfork owns every place
// where their value changes behavior (the allocators, their repair loops and the
// default-ServiceCIDR controller).
package features
