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

package portallocator

import (
	"strings"
	"testing"

	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/netfork/netfork/pkg/registry/core/service/allocator/storage/storagetest"
)

func TestNewStored(t *testing.T) {
	tests := []struct {
		name string
		// seed is the range stored before start-up, "" for none.
		seed    string
		wantErr string
	}{
		{name: "fresh cluster"},
		{name: "stored bitmap", seed: "30000-32767"},
		{
			name:    "--service-node-port-range changed",
			seed:    "30000-32000",
			wantErr: "cannot create NodePort allocator for 30000-32767: stored NodePort bitmap /ranges/servicenodeports holds range 30000-32000 but --service-node-port-range says range 30000-32767: set --service-node-port-range back to 30000-32000, ",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := storagetest.New(t)
			if tc.seed != "" {
				other, seeder, err := NewStored(mustPortRange(t, tc.seed), s.NodePorts)
				if err != nil {
					t.Fatalf("seeding: %v", err)
				}
				t.Cleanup(other.Destroy)
				if err := seeder.CreateOrUpdate(&api.RangeAllocation{Range: tc.seed, Data: []byte{0x01}}); err != nil {
					t.Fatalf("seeding: %v", err)
				}
			}

			alloc, registry, err := NewStored(mustPortRange(t, "30000-32767"), s.NodePorts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("NewStored = %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewStored: %v", err)
			}
			t.Cleanup(alloc.Destroy)
			if _, ok := alloc.(*PortAllocator); !ok {
				t.Fatalf("NewStored built a %T, want netfork's *PortAllocator", alloc)
			}
			if tc.seed == "" {
				// A fresh cluster's bitmap is the repair loop's to create, as upstream.
				if err := registry.CreateOrUpdate(&api.RangeAllocation{Range: "30000-32767"}); err != nil {
					t.Fatalf("the repair loop's CreateOrUpdate: %v", err)
				}
			} else if !alloc.Has(30000) {
				t.Errorf("the stored allocation of 30000 was not loaded at start-up")
			}
			port, err := alloc.AllocateNext()
			if err != nil || port < 30086 {
				t.Errorf("AllocateNext = %d, %v; want a port of the dynamic band", port, err)
			}
		})
	}
}
