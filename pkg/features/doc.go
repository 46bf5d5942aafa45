// Package features declares netfork's own feature gates and adds them to the
// kube-apiserver's feature gate, next to upstream's k8s.io/kubernetes/pkg/features
// (v1.37.1), which netfork keeps as-is for every gate it does not own.
package features
