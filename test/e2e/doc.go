// Package e2e is netfork's ginkgo suite, run against any cluster named by
// $KUBECONFIG (a local-up control plane, a kind cluster built with netfork's
// kube-apiserver) with `make test-e2e`. It is not part of `make test`.
package e2e
