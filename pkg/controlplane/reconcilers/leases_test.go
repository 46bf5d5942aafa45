/*
Copyright 2026 The netfork Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package reconcilers

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestAddressLeaseStoredForm pins the format docs/differences.md documents: addresses while
// serving, notReadyAddresses while terminating, primary first.
func TestAddressLeaseStoredForm(t *testing.T) {
	tests := []struct {
		name  string
		lease AddressLease
		want  corev1.EndpointSubset
	}{
		{"single", AddressLease{Addresses: []string{ipA}},
			corev1.EndpointSubset{Addresses: []corev1.EndpointAddress{{IP: ipA}}}},
		{"dual", AddressLease{Addresses: []string{ipA, ip6A}},
			corev1.EndpointSubset{Addresses: []corev1.EndpointAddress{{IP: ipA}, {IP: ip6A}}}},
		{"terminating", AddressLease{Addresses: []string{ipA, ip6A}, Terminating: true},
			corev1.EndpointSubset{NotReadyAddresses: []corev1.EndpointAddress{{IP: ipA}, {IP: ip6A}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := subsetOf(tc.lease)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("subsetOf(%+v) = %+v, want %+v", tc.lease, got, tc.want)
			}
			back, ok := leaseFromEndpoints(&corev1.Endpoints{Subsets: []corev1.EndpointSubset{got}})
			if !ok || !reflect.DeepEqual(back, tc.lease) {
				t.Errorf("read back %+v (ok=%t), want %+v", back, ok, tc.lease)
			}
		})
	}
}

func TestAddressLeaseMalformedIsSkipped(t *testing.T) {
	addrs := func(ips ...string) []corev1.EndpointAddress {
		var out []corev1.EndpointAddress
		for _, ip := range ips {
			out = append(out, corev1.EndpointAddress{IP: ip})
		}
		return out
	}
	for name, subsets := range map[string][]corev1.EndpointSubset{
		"no subsets":      nil,
		"two subsets":     {{Addresses: addrs(ipA)}, {Addresses: addrs(ipB)}},
		"no addresses":    {{}},
		"three addresses": {{Addresses: addrs(ipA, ip6A, ipB)}},
	} {
		t.Run(name, func(t *testing.T) {
			if lease, ok := leaseFromEndpoints(&corev1.Endpoints{Subsets: subsets}); ok {
				t.Errorf("read %+v from a malformed lease, want it skipped", lease)
			}
		})
	}
}
