// Package registrytest holds what the tests of netfork's ClusterIP and NodePort
// allocators and repair loops share: a RangeRegistry kept in memory with etcd's
// optimistic concurrency, an events recorder, counter readers, the checks of
// metric registration over upstream's collectors, and the runs of a repair
// loop (first pass, transient first-pass errors, stop, events reaching the
// API). It replaces nothing upstream; only tests import it.
package registrytest
