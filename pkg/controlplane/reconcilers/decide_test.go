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

// TestDecide is the decision table of KEP-2438's "Service and EndpointSlice
// Reconciling", as netfork resolves it.
func TestDecide(t *testing.T) {
	dual := func(p, s string) AddressLease { return AddressLease{Addresses: []string{p, s}} }
	single := func(p string) AddressLease { return AddressLease{Addresses: []string{p}} }
	terminating := func(l AddressLease) AddressLease { l.Terminating = true; return l }

	tests := []struct {
		name      string
		legacy    []string
		leases    map[string]AddressLease
		secondary corev1.IPFamily
		want      Decision
	}{{
		name:      "old only: no address leases, upstream's shape",
		legacy:    []string{"198.18.0.2", "198.18.0.1"},
		secondary: corev1.IPv6Protocol,
		want:      Decision{Shape: ShapeUpstream, Members: []Member{{Primary: "198.18.0.1"}, {Primary: "198.18.0.2"}}},
	}, {
		name:      "new single: every apiserver netfork's, one family each",
		legacy:    []string{"198.18.0.1", "198.18.0.2"},
		leases:    map[string]AddressLease{"198.18.0.1": single("198.18.0.1"), "198.18.0.2": single("198.18.0.2")},
		secondary: corev1.IPv6Protocol,
		want:      Decision{Shape: ShapeSingleStack, Members: []Member{{Primary: "198.18.0.1"}, {Primary: "198.18.0.2"}}},
	}, {
		name:   "new dual: every apiserver has both families",
		legacy: []string{"198.18.0.1", "198.18.0.2"},
		leases: map[string]AddressLease{
			"198.18.0.1": dual("198.18.0.1", "fd4e:6574:666b:1::1"),
			"198.18.0.2": dual("198.18.0.2", "fd4e:6574:666b:1::2"),
		},
		secondary: corev1.IPv6Protocol,
		want: Decision{Shape: ShapeDualStack, Members: []Member{
			{Primary: "198.18.0.1", Secondary: "fd4e:6574:666b:1::1"},
			{Primary: "198.18.0.2", Secondary: "fd4e:6574:666b:1::2"},
		}},
	}, {
		name:   "mixed: one old apiserver makes everything upstream's, terminating dropped",
		legacy: []string{"198.18.0.1", "198.18.0.2", "198.18.0.3"},
		leases: map[string]AddressLease{
			"198.18.0.1": dual("198.18.0.1", "fd4e:6574:666b:1::1"),
			"198.18.0.2": terminating(dual("198.18.0.2", "fd4e:6574:666b:1::2")),
		},
		secondary: corev1.IPv6Protocol,
		want:      Decision{Shape: ShapeUpstream, Members: []Member{{Primary: "198.18.0.1"}, {Primary: "198.18.0.2"}, {Primary: "198.18.0.3"}}},
	}, {
		name:   "mixed: new single and new dual stay single-stack, terminating kept",
		legacy: []string{"198.18.0.1", "198.18.0.2"},
		leases: map[string]AddressLease{
			"198.18.0.1": dual("198.18.0.1", "fd4e:6574:666b:1::1"),
			"198.18.0.2": terminating(single("198.18.0.2")),
		},
		secondary: corev1.IPv6Protocol,
		want:      Decision{Shape: ShapeSingleStack, Members: []Member{{Primary: "198.18.0.1"}, {Primary: "198.18.0.2", Terminating: true}}},
	}, {
		name:      "dual leases but this apiserver's service ranges are single-stack",
		legacy:    []string{"198.18.0.1"},
		leases:    map[string]AddressLease{"198.18.0.1": dual("198.18.0.1", "fd4e:6574:666b:1::1")},
		secondary: "",
		want:      Decision{Shape: ShapeSingleStack, Members: []Member{{Primary: "198.18.0.1"}}},
	}, {
		name:   "expired upstream lease: its address lease is ignored",
		legacy: []string{"198.18.0.1"},
		leases: map[string]AddressLease{
			"198.18.0.1": dual("198.18.0.1", "fd4e:6574:666b:1::1"),
			"198.18.0.2": single("198.18.0.2"),
		},
		secondary: corev1.IPv6Protocol,
		want:      Decision{Shape: ShapeDualStack, Members: []Member{{Primary: "198.18.0.1", Secondary: "fd4e:6574:666b:1::1"}}},
	}, {
		name:      "expired address lease under a live upstream lease counts as old",
		legacy:    []string{"198.18.0.1", "198.18.0.2"},
		leases:    map[string]AddressLease{"198.18.0.1": dual("198.18.0.1", "fd4e:6574:666b:1::1")},
		secondary: corev1.IPv6Protocol,
		want:      Decision{Shape: ShapeUpstream, Members: []Member{{Primary: "198.18.0.1"}, {Primary: "198.18.0.2"}}},
	}, {
		name:   "terminating apiserver keeps both families",
		legacy: []string{"198.18.0.1", "198.18.0.2"},
		leases: map[string]AddressLease{
			"198.18.0.1": dual("198.18.0.1", "fd4e:6574:666b:1::1"),
			"198.18.0.2": terminating(dual("198.18.0.2", "fd4e:6574:666b:1::2")),
		},
		secondary: corev1.IPv6Protocol,
		want: Decision{Shape: ShapeDualStack, Members: []Member{
			{Primary: "198.18.0.1", Secondary: "fd4e:6574:666b:1::1"},
			{Primary: "198.18.0.2", Secondary: "fd4e:6574:666b:1::2", Terminating: true},
		}},
	}, {
		name:      "a lease with the families swapped is not dual",
		legacy:    []string{"198.18.0.1"},
		leases:    map[string]AddressLease{"198.18.0.1": dual("198.18.0.1", "198.18.0.9")},
		secondary: corev1.IPv6Protocol,
		want:      Decision{Shape: ShapeSingleStack, Members: []Member{{Primary: "198.18.0.1"}}},
	}, {
		name:      "IPv6-primary cluster",
		legacy:    []string{"fd4e:6574:666b:1::1"},
		leases:    map[string]AddressLease{"fd4e:6574:666b:1::1": dual("fd4e:6574:666b:1::1", "198.18.0.1")},
		secondary: corev1.IPv4Protocol,
		want:      Decision{Shape: ShapeDualStack, Members: []Member{{Primary: "fd4e:6574:666b:1::1", Secondary: "198.18.0.1"}}},
	}, {
		name:      "duplicates dropped, text order as upstream's Endpoints",
		legacy:    []string{"198.18.0.2", "198.18.0.10", "198.18.0.2"},
		secondary: corev1.IPv6Protocol,
		want:      Decision{Shape: ShapeUpstream, Members: []Member{{Primary: "198.18.0.10"}, {Primary: "198.18.0.2"}}},
	}, {
		name:      "nobody live",
		secondary: corev1.IPv6Protocol,
		want:      Decision{Shape: ShapeUpstream, Members: []Member{}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Decide(tc.legacy, tc.leases, tc.secondary)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Decide(%v, %v, %q)\n got %+v\nwant %+v", tc.legacy, tc.leases, tc.secondary, got, tc.want)
			}
		})
	}
}
