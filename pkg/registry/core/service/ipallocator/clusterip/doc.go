// Package clusterip reads Services' ClusterIPs the one way netfork's ClusterIP
// allocator and its IPAddress repair loop both need: as the canonical address
// an IPAddress object is named by, legacy forms included, and through one
// index of the shared Service informer.
package clusterip
