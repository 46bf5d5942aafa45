// Package localup runs a local control plane: an embedded etcd and N kube-apiserver child
// processes on loopback sharing one PKI, with a kubeconfig for the admin. It checks every
// input before it touches the data dir, keeps the cluster across restarts, and leaves
// nothing running when it stops or fails.
package localup
