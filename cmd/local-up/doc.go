// Command local-up runs a local netfork control plane: an embedded etcd and N
// kube-apiservers on loopback, with a kubeconfig for the admin.
//
//	go run ./cmd/local-up [local-up flags] -- [kube-apiserver flags]
package main
