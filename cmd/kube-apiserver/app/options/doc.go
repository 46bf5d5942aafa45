// Package options is netfork's kube-apiserver options: upstream's
// k8s.io/kubernetes/cmd/kube-apiserver/app/options (v1.37.1), embedded as-is,
// plus a second --bind-address and --advertise-address per IP family behind the
// DualStackAPIServer gate (KEP-2438, which upstream never implemented).
//
// It stands in for upstream's ServerRunOptions.Flags, Complete and
// CompletedOptions.Validate only to run netfork's steps around them: Flags wraps
// the two address flags to take a pair, Complete decides the per-family
// addresses before upstream defaults the single ones, Validate adds the
// dual-stack rules after upstream's, and Listen binds both families before
// upstream's SecureServingOptions.ApplyTo would bind one. With the gate off each
// of them is upstream's, and a pair is upstream's parse error.
package options
