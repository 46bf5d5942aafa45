// Package framework runs netfork's integration tests: one embedded etcd per test
// package (EtcdMain, from TestMain), netfork kube-apiservers started in-process per
// test on random loopback ports, and upstream's own kube-apiserver v1.37.1, built
// from this module's graph, as a process on the same etcd for skew tests.
package framework
