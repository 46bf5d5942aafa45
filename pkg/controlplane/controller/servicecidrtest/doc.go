// Package servicecidrtest holds test helpers for netfork's ServiceCIDR
// controllers, for their unit tests (fake clientset, fake events/v1 recorder)
// and for integration tests against a real apiserver: waiting on a ServiceCIDR
// and reading what a fake recorder was given.
package servicecidrtest
