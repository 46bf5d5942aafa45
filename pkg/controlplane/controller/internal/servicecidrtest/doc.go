// Package servicecidrtest holds the test helpers of netfork's ServiceCIDR
// controllers: waiting on a ServiceCIDR in a fake clientset and reading what a
// fake events/v1 recorder was given.
package servicecidrtest
