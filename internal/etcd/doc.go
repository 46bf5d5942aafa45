// Package etcd runs an embedded, single-member etcd on loopback for the local
// control plane (cmd/local-up) and for integration tests, the way k3s embeds
// etcd: it starts before any apiserver and is awaited with a readiness check.
package etcd
