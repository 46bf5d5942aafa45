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

package rest

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/apis/networking"
)

func TestValidateIndexable(t *testing.T) {
	tests := []struct {
		cidrs   []string
		keep    []string
		wantErr string
	}{
		{cidrs: []string{"10.0.0.0/16", "fd00::/108"}},
		{cidrs: []string{"fd00:1::/64"}},
		{cidrs: []string{"10.0.0.0/32"}},
		{cidrs: []string{"0.0.0.0/0"}, wantErr: "spec.cidrs[0]: Invalid value: \"0.0.0.0/0\": must not be a /0"},
		{cidrs: []string{"10.0.0.0/8", "::/0"}, wantErr: "spec.cidrs[1]: Invalid value: \"::/0\": must not be a /0"},
		{cidrs: []string{"fd00::/48"}, wantErr: "spec.cidrs[0]: Invalid value: \"fd00::/48\": IPv6 prefix must be /64 or longer"},
		{cidrs: []string{"10.0.0.0/8", "fd00::/48"}, keep: []string{"fd00::/48"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.cidrs, ","), func(t *testing.T) {
			sc := &networking.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: networking.ServiceCIDRSpec{CIDRs: tc.cidrs}}
			errs := validateIndexable(sc, tc.keep)
			switch {
			case tc.wantErr == "" && len(errs) > 0:
				t.Errorf("unexpected errors: %v", errs)
			case tc.wantErr != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.wantErr)):
				t.Errorf("errors = %v, want one containing %q", errs, tc.wantErr)
			}
		})
	}
}
