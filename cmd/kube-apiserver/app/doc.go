// Package app is netfork's kube-apiserver command. It stands in for
// k8s.io/kubernetes/cmd/kube-apiserver/app (v1.37.1) only where that package
// hard-wires upstream's control plane (Run and CreateServerChain); flags,
// options, validation and the extension and aggregator configs are upstream's.
// The command runs Options -> Complete -> Validate -> Config -> Complete -> New -> Run.
package app
