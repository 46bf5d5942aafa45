// Package registrytest holds the fakes that the tests of netfork's ClusterIP
// and NodePort repair loops share: a RangeRegistry kept in memory with etcd's
// optimistic concurrency, an events recorder and counter readers. It replaces
// nothing upstream; only tests import it.
package registrytest
