// Package tcpproxy relays TCP connections from a listener to a target chosen per
// connection: local-up's front over its apiservers, and hack/local-up-netns's
// forwarders into and out of network namespaces. TLS passes through untouched.
package tcpproxy
